import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import { loadConfigFromEnv } from '../config/load-config-from-env.js';
import { CONFIG_ENV_VARS } from '../config/option-env.js';
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

/**
 * The bus options a router reads from the environment (what `commitbus
 * router` runs on): `loadConfigFromEnv`'s, always on Redis (`transport`
 * `bullmq`; `COMMITBUS_TRANSPORT` is not read: a router's queues must
 * outlive it). With no Redis variable set it throws
 * `RouterRedisRequiredError`, saying what to set, unless `dev` is on.
 */
export function loadRouterConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  { dev = false, logger = consoleLogger }: RouterConfigFromEnvOptions = {},
): ResolvedCommitbusOptions {
  if (ownRedisVariable(env) === undefined && !dev) throw new RouterRedisRequiredError('environment');
  return loadConfigFromEnv(env, { transport: 'bullmq' }, logger);
}
