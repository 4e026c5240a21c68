import type { ResolvedCommitbusOptions } from './commitbus-options.js';
import { maskedOnInspect } from './masked-redis.js';
import type { RedisOptions } from './option-groups.js';
import { redisGiven, rememberRedisGiven } from './redis-given.js';
import { checkResolvedOptions } from './resolve-options.js';

/**
 * What a transport adapter value (`redisTransport({ url })`) says of where a
 * bus's data lives, applied over the bus's own options: the adapter's word
 * wins. An adapter without a server leaves it empty.
 */
export interface TransportSettings {
  /** The adapter's Redis, when it has one: each field left out keeps the bus's option. */
  readonly redis?: Partial<Pick<RedisOptions, 'url' | 'cluster' | 'prefix'>>;
  /**
   * `true` when `redis` is a fallback rather than the adapter's word: it
   * applies only when the bus's options name no Redis of their own
   * (`transportFromEnv()`: the code's `loadConfigFromEnv` overrides win).
   * @defaultValue `false`
   */
  readonly fallback?: boolean;
}

/**
 * `config` with an adapter's settings applied, checked as `resolveOptions`
 * checks (a wrong Redis URL is a `ConfigError`, its password masked);
 * `config` itself for an adapter without settings.
 */
export function withTransportSettings(
  config: ResolvedCommitbusOptions,
  settings: TransportSettings | undefined,
): ResolvedCommitbusOptions {
  if (settings === undefined) return config;
  const named = redisGiven(config);
  const redis = settings.fallback === true && named ? {} : (settings.redis ?? {});
  const applied: ResolvedCommitbusOptions = {
    ...config,
    redis: maskedOnInspect({
      ...config.redis,
      ...(redis.url === undefined ? {} : { url: redis.url, cluster: undefined }),
      ...(redis.cluster === undefined ? {} : { cluster: redis.cluster }),
      ...(redis.prefix === undefined ? {} : { prefix: redis.prefix }),
    }),
  };
  checkResolvedOptions(applied);
  rememberRedisGiven(applied, named || redis.url !== undefined || redis.cluster !== undefined);
  return applied;
}
