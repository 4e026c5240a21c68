import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import { ConfigError } from '../config/errors/config.error.js';
import { loadConfigFromEnv } from '../config/load-config-from-env.js';
import { CONFIG_ENV_VARS } from '../config/option-env.js';
import { redactRedisUrl, redisUrlProblem } from '../config/redis-url.js';
import { consoleLogger, type Logger } from '../support/logger.js';
import { RouterRedisRequiredError } from './errors/router-redis-required.error.js';

/** How {@link loadRouterConfigFromEnv} reads the environment. */
export interface RouterConfigFromEnvOptions {
  /**
   * Development: with no Redis variable set, use the Redis at
   * `redis://127.0.0.1:6379` instead of refusing (`commitbus router --dev`).
   * @defaultValue `false`
   */
  readonly dev?: boolean;
  /** Where deprecated variables are warned about. @defaultValue the console */
  readonly logger?: Logger;
}

/** Whether any of the bus's own variables names a Redis (`REDIS_URL`, `REDIS_CLUSTER_NODES`, ...). */
function ownRedisVariable(env: NodeJS.ProcessEnv): string | undefined {
  const names = [...(CONFIG_ENV_VARS['redis.url'] ?? []), ...(CONFIG_ENV_VARS['redis.cluster'] ?? [])];
  return names.find((name) => (env[name]?.trim() ?? '') !== '');
}

/** A variable that names a Redis, and its URL. */
interface RedisVariable {
  readonly variable: string;
  readonly url: string;
}

/** An environment variable's name, as Routemaster reads an indirect value. */
const VARIABLE_NAME = /^[A-Z][A-Z_]+$/;

/**
 * The Redis a Routemaster deployment names: the variable `REDIS_ENV_KEY`
 * names when that one is set, else `ROUTEMASTER_REDIS_URL`; a value that is
 * a variable's name (`REDISCLOUD_URL`) is read through, as Routemaster's
 * `.env` allows. A URL ioredis cannot read throws a `ConfigError` naming the
 * variable, its password masked.
 */
export function routemasterRedis(env: NodeJS.ProcessEnv): RedisVariable | undefined {
  const indirect = env.REDIS_ENV_KEY?.trim();
  let variable =
    indirect !== undefined && indirect !== '' && env[indirect] !== undefined
      ? indirect
      : 'ROUTEMASTER_REDIS_URL';
  let url = env[variable]?.trim();
  if (url !== undefined && VARIABLE_NAME.test(url) && env[url] !== undefined) {
    variable = url;
    url = env[variable]?.trim();
  }
  if (url === undefined || url === '') return undefined;
  const problem = redisUrlProblem(url);
  if (problem !== undefined) {
    throw new ConfigError(`${variable} ${JSON.stringify(redactRedisUrl(url))} is wrong: ${problem}`);
  }
  return { variable, url };
}

/**
 * Routemaster's Redis when one of ours (`ours`) overrides it: a value it
 * cannot read is only warned about (its password masked), since ours is used.
 */
function overriddenRoutemasterRedis(
  env: NodeJS.ProcessEnv,
  ours: string,
  logger: Logger,
): RedisVariable | undefined {
  try {
    return routemasterRedis(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    logger.warn({ used: ours }, `router: ${error.message}; the router uses ${ours}`);
    return undefined;
  }
}

/**
 * The bus options a router reads from the environment (what `commitbus
 * router` runs on, with `redisTransport()`): `loadConfigFromEnv`'s, always
 * naming a Redis (`COMMITBUS_TRANSPORT` is not read: a router's queues must
 * outlive it). The Redis is ours (`COMMITBUS_REDIS_URL`, `REDIS_URL`,
 * `REDIS_CLUSTER_NODES`, ...) or, when none of ours is set, Routemaster's
 * (`ROUTEMASTER_REDIS_URL`, or the variable `REDIS_ENV_KEY` names). Both
 * set to different Redis servers is logged as a warning naming the
 * variables, and so is Routemaster's when ours overrides it and it is
 * wrong. With none set it throws `RouterRedisRequiredError`, saying what to
 * set, unless `dev` is on (then `redis://127.0.0.1:6379`).
 */
export function loadRouterConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  { dev = false, logger = consoleLogger }: RouterConfigFromEnvOptions = {},
): ResolvedCommitbusOptions {
  const ours = ownRedisVariable(env);
  const theirs = ours === undefined ? routemasterRedis(env) : overriddenRoutemasterRedis(env, ours, logger);
  if (ours === undefined && theirs === undefined && !dev) throw new RouterRedisRequiredError('environment');
  if (ours !== undefined && theirs !== undefined && env[ours]?.trim() !== theirs.url) {
    logger.warn(
      { used: ours, ignored: theirs.variable },
      `router: ${ours} and Routemaster's ${theirs.variable} name different Redis servers; the router uses ${ours}`,
    );
  }
  const redis = ours === undefined && theirs !== undefined ? { redis: { url: theirs.url } } : {};
  // The router always runs on Redis: the variable that names a bus's transport is not its to read.
  const { COMMITBUS_TRANSPORT: _transport, ...rest } = env;
  return loadConfigFromEnv(rest, redis, logger);
}
