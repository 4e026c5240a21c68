import type { TransportKind } from './commitbus-options.js';
import type { CommitbusConfig } from './config.js';
import { markResolved } from './normalize-options.js';
import type { RedisOptions } from './option-groups.js';
import { checkConfig } from './resolve-config.js';
import { rememberTransportGiven } from './transport-given.js';

/**
 * What a transport adapter value (`redisTransport({ url })`,
 * `memoryTransport()`) says of where a bus's data lives, applied over the
 * bus's own options: the adapter's word wins.
 */
export interface TransportSettings {
  /** The kind of transport, as `transport` in the options names it (status, the CLI read it). */
  readonly transport: TransportKind;
  /** The adapter's Redis, when it has one: each field left out keeps the bus's option. */
  readonly redis?: Partial<Pick<RedisOptions, 'url' | 'cluster' | 'prefix'>>;
}

/**
 * `config` with an adapter's settings applied, checked as `resolveConfig`
 * checks (a wrong Redis URL is a `ConfigError`, its password masked), and
 * recorded as named (not defaulted), so the CLI and the router know the
 * transport was asked for.
 */
export function withTransportSettings(config: CommitbusConfig, settings: TransportSettings): CommitbusConfig {
  const { redis = {} } = settings;
  const applied: CommitbusConfig = {
    ...config,
    transport: settings.transport,
    ...(redis.url === undefined ? {} : { redisUrl: redis.url, redisCluster: undefined }),
    ...(redis.cluster === undefined ? {} : { redisCluster: redis.cluster }),
    ...(redis.prefix === undefined ? {} : { prefix: redis.prefix }),
  };
  checkConfig(applied);
  rememberTransportGiven(applied, { transport: settings.transport, redis: { ...redis } });
  return markResolved(applied);
}
