import type { CommitbusConfig } from './config.js';
import { markResolved } from './normalize-options.js';
import type { RedisOptions } from './option-groups.js';
import { rememberRedisGiven } from './redis-given.js';
import { checkConfig } from './resolve-config.js';

/**
 * What a transport adapter value (`redisTransport({ url })`) says of where a
 * bus's data lives, applied over the bus's own options: the adapter's word
 * wins. An adapter without a server leaves it empty.
 */
export interface TransportSettings {
  /** The adapter's Redis, when it has one: each field left out keeps the bus's option. */
  readonly redis?: Partial<Pick<RedisOptions, 'url' | 'cluster' | 'prefix'>>;
}

/**
 * `config` with an adapter's settings applied, checked as `resolveConfig`
 * checks (a wrong Redis URL is a `ConfigError`, its password masked).
 */
export function withTransportSettings(config: CommitbusConfig, settings: TransportSettings): CommitbusConfig {
  const { redis = {} } = settings;
  const applied: CommitbusConfig = {
    ...config,
    ...(redis.url === undefined ? {} : { redisUrl: redis.url, redisCluster: undefined }),
    ...(redis.cluster === undefined ? {} : { redisCluster: redis.cluster }),
    ...(redis.prefix === undefined ? {} : { prefix: redis.prefix }),
  };
  checkConfig(applied);
  rememberRedisGiven(applied, { redis: { ...redis } });
  return markResolved(applied);
}
