import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import { ConfigError } from '../../config/errors/config.error.js';
import type { RedisOptions } from '../../config/option-groups.js';
import type { TransportSettings } from '../../config/transport-settings.js';
import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import type { RouterStores } from '../../router/router-stores.js';
import type { Logger } from '../../support/logger.js';
import { BullmqTransport } from './bullmq.transport.js';
import { redisRouterStores } from './redis-router-stores.js';

/** What a bus or a router hands the Redis adapter when it opens it (the bus's `TransportContext`). */
export interface RedisAdapterContext {
  readonly config: ResolvedCommitbusOptions;
  readonly logger: Logger;
}

/** Where `redisTransport` connects: each field left out keeps the bus's `config.redis` option. */
export type RedisTransportOptions = Partial<Pick<RedisOptions, 'url' | 'cluster' | 'prefix'>>;

/**
 * The Redis adapter as a value, for `createEventBus({ transport:
 * redisTransport({ url }) })`: events in a Redis stream, handler jobs on
 * BullMQ, on one Redis (`url`) or a Redis Cluster (`cluster`: a few nodes,
 * or an ioredis `Cluster` to copy). Its options win over the bus's
 * `config.redis`; the rest of `config` (drains, handlers, ...) still
 * applies. A wrong URL is a `ConfigError` with the password masked.
 */
export function redisTransport(options: RedisTransportOptions = {}): {
  readonly name: 'redis';
  readonly settings: TransportSettings;
  open(context: RedisAdapterContext): BullmqTransport;
  routerStores(
    context: RedisAdapterContext,
    shared: { readonly deadLetters?: DeadLetterStore },
  ): RouterStores;
} {
  checkTransportOptions(options);
  const redis: RedisTransportOptions = {
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.cluster === undefined ? {} : { cluster: options.cluster }),
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
  };
  return {
    name: 'redis',
    settings: { redis },
    open: ({ config, logger }) => new BullmqTransport(config, logger),
    routerStores: ({ config, logger }, shared) => redisRouterStores(config, logger, shared),
  };
}

const OPTION_NAMES = ['url', 'cluster', 'prefix'];

/** A `ConfigError` for what `redisTransport` cannot read: not an object of options, or an option it lacks. */
function checkTransportOptions(options: unknown): void {
  if (typeof options === 'string') {
    throw new ConfigError(
      'redisTransport takes an object of options: redisTransport({ url: "redis://..." }), not the URL itself',
    );
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError(
      `redisTransport takes an object of options (url, cluster, prefix), got ${options === null ? 'null' : typeof options}`,
    );
  }
  const unknown = Object.keys(options).filter((key) => !OPTION_NAMES.includes(key));
  if (unknown.length > 0) {
    throw new ConfigError(
      `unknown redisTransport option ${JSON.stringify(unknown[0])}: the options are ${OPTION_NAMES.join(', ')}`,
    );
  }
}
