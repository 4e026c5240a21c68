import type { CommitbusOptions } from './commitbus-options.js';
import { DEFAULT_CONFIG } from './config.js';
import { normalizeOptions } from './normalize-options.js';

/** Whether each configuration `resolveOptions` or `loadConfigFromEnv` made was given a Redis. */
const GIVEN = new WeakMap<object, boolean>();

/**
 * Records, on a configuration just resolved from `input`, whether `input`
 * named a Redis (or, given a boolean, that it did or did not).
 */
export function rememberRedisGiven(resolved: object, input: unknown): void {
  GIVEN.set(resolved, typeof input === 'boolean' ? input : redisGiven(input as CommitbusOptions | undefined));
}

/**
 * Whether `input` named a Redis (`redis.url` or `redis.cluster`), as
 * opposed to the default URL filled in: read from the record a resolved
 * configuration carries, else from the options themselves. A bus given one
 * without a transport adapter refuses to start in memory. Throws a
 * `ConfigError` as `resolveOptions` does for options it would refuse.
 */
export function redisGiven(input: CommitbusOptions | undefined): boolean {
  if (typeof input === 'object' && input !== null) {
    const known = GIVEN.get(input);
    if (known !== undefined) return known;
  }
  const { given } = normalizeOptions(input);
  const redis = given.redis as { url?: unknown; cluster?: unknown } | undefined;
  if (copiesDefaultRedis(input)) return false;
  return redis?.url !== undefined || redis?.cluster !== undefined;
}

/**
 * A spread copy of resolved options (`{ ...bus.config, name: 'other' }`)
 * carries the whole `redis` group, the default URL and `cluster: undefined`
 * included: that names no Redis.
 */
function copiesDefaultRedis(input: unknown): boolean {
  const redis = (input as { redis?: unknown } | undefined)?.redis as Record<string, unknown> | undefined;
  if (typeof redis !== 'object' || redis === null) return false;
  return (
    Object.hasOwn(redis, 'cluster') && redis.cluster === undefined && redis.url === DEFAULT_CONFIG.redis.url
  );
}
