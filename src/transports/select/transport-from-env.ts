import { ConfigError } from '../../config/errors/config.error.js';
import { loadConfigFromEnv } from '../../config/load-config-from-env.js';
import { CONFIG_ENV_VARS } from '../../config/option-env.js';
import { silentLogger } from '../../support/logger.js';
import { memoryTransport } from '../memory/memory-transport.js';
import { redisTransport } from '../redis/redis-transport.js';

/** The variable that names the transport. */
const TRANSPORT_VARIABLE = 'COMMITBUS_TRANSPORT';

/** What {@link TRANSPORT_VARIABLE} may say; `bullmq` is the Redis adapter's old name. */
const NAMES = ['redis', 'bullmq', 'memory'] as const;

/**
 * The transport adapter the environment names, for services configured by
 * variables (`createEventBus({ config: loadConfigFromEnv(), transport:
 * transportFromEnv() })`, what the README's worker and the CLI's modules
 * do): `COMMITBUS_TRANSPORT=redis` (or its old name `bullmq`) or `memory`
 * when set; else the Redis adapter when a Redis is named (`REDIS_URL`,
 * `COMMITBUS_REDIS_URL`, `REDIS_CLUSTER_NODES`, `COMMITBUS_REDIS_CLUSTER`,
 * read as `loadConfigFromEnv` reads them, used only when the bus's options
 * name no Redis of their own, so the code's overrides win); else the
 * in-process one. The key prefix is the bus's `redis.prefix` option
 * (`COMMITBUS_REDIS_PREFIX` through `loadConfigFromEnv`). Another value of `COMMITBUS_TRANSPORT`, or a
 * Redis URL ioredis cannot read, throws a `ConfigError` naming the variable
 * (a password masked).
 */
export function transportFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): ReturnType<typeof redisTransport> | ReturnType<typeof memoryTransport> {
  const asked = env[TRANSPORT_VARIABLE]?.trim() ?? '';
  if (asked !== '' && !(NAMES as readonly string[]).includes(asked)) {
    throw new ConfigError(
      `${TRANSPORT_VARIABLE} must be one of ${NAMES.join(', ')}, got ${JSON.stringify(asked)}`,
    );
  }
  const redis = redisOf(env);
  if (asked === 'memory' || (asked === '' && redis === undefined)) return memoryTransport();
  const adapter = redisTransport(redis ?? {});
  // A fallback: a Redis the bus's own options name (loadConfigFromEnv's overrides) wins over the variables.
  return { ...adapter, settings: { ...adapter.settings, fallback: true } };
}

/** The Redis the variables name, `undefined` when none does. */
function redisOf(env: NodeJS.ProcessEnv): Parameters<typeof redisTransport>[0] | undefined {
  const set = (path: string) =>
    (CONFIG_ENV_VARS[path] ?? []).filter((name) => (env[name]?.trim() ?? '') !== '');
  if (set('redis.url').length === 0 && set('redis.cluster').length === 0) return undefined;
  // Only the Redis variables are read here: the bus's other options (its prefix too) are loadConfigFromEnv's.
  const only = Object.fromEntries(
    ['redis.url', 'redis.cluster'].flatMap(set).map((name) => [name, env[name]]),
  );
  const { redis } = loadConfigFromEnv(only, {}, silentLogger);
  return redis.cluster !== undefined ? { cluster: redis.cluster } : { url: redis.url };
}
