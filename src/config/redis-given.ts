import type { CommitbusOptions } from './commitbus-options.js';
import { DEFAULT_CONFIG } from './config.js';
import { normalizeOptions } from './normalize-options.js';

/**
 * Whether the options each resolved `redis` group came from named a Redis,
 * by the group itself: a spread copy of resolved options
 * (`{ ...bus.config, name: 'other' }`) carries the very same group, so it
 * says what the original said. `DEFAULT_CONFIG`'s names none.
 */
const GIVEN = new WeakMap<object, boolean>([[DEFAULT_CONFIG.redis, false]]);

/**
 * Records, on options just resolved from `input`, whether `input` named a
 * Redis (or, given a boolean, that it did or did not).
 */
export function rememberRedisGiven(resolved: { readonly redis: object }, input: unknown): void {
  GIVEN.set(
    resolved.redis,
    typeof input === 'boolean' ? input : redisGiven(input as CommitbusOptions | undefined),
  );
}

/**
 * Whether `input` named a Redis (`redis.url` or `redis.cluster`), as
 * opposed to the default URL filled in: read from the record its `redis`
 * group carries when options were resolved (a spread copy of them included),
 * else from the options themselves. A bus given one without a transport
 * adapter refuses to start in memory. Throws a `ConfigError` as
 * `resolveOptions` does for options it would refuse.
 */
export function redisGiven(input: CommitbusOptions | undefined): boolean {
  const group = (input as { redis?: unknown } | undefined)?.redis;
  if (typeof group === 'object' && group !== null) {
    const known = GIVEN.get(group);
    if (known !== undefined) return known;
  }
  const { given } = normalizeOptions(input);
  const redis = given.redis as { url?: unknown; cluster?: unknown } | undefined;
  return redis?.url !== undefined || redis?.cluster !== undefined;
}
