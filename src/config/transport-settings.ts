import type { CommitbusConfig } from './config.js';
import { markResolved } from './normalize-options.js';
import type { RedisOptions } from './option-groups.js';
import { redisGiven, rememberRedisGiven } from './redis-given.js';
import { checkConfig } from './resolve-config.js';

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
 * `config` with an adapter's settings applied, checked as `resolveConfig`
 * checks (a wrong Redis URL is a `ConfigError`, its password masked).
 */
export function withTransportSettings(config: CommitbusConfig, settings: TransportSettings): CommitbusConfig {
  const named = redisGiven(config);
  const redis = settings.fallback === true && named ? {} : (settings.redis ?? {});
  const applied: CommitbusConfig = {
    ...config,
    ...(redis.url === undefined ? {} : { redisUrl: redis.url, redisCluster: undefined }),
    ...(redis.cluster === undefined ? {} : { redisCluster: redis.cluster }),
    ...(redis.prefix === undefined ? {} : { prefix: redis.prefix }),
  };
  checkConfig(applied);
  rememberRedisGiven(applied, named || redis.url !== undefined || redis.cluster !== undefined);
  return markResolved(applied);
}
