import { ConfigError } from '../config/errors/config.error.js';
import { redisGiven } from '../config/redis-given.js';
import { defaultTransport } from '../transports/select/default-transport.js';
import { adapterValue } from './adapter-value.js';
import type { EventBusOptions } from './event-bus-options.js';
import type { TransportAdapter } from './transport.js';

/**
 * The adapter a bus opens: the one given, else the embedded default, unless
 * the options name a Redis (`redis.url`, `REDIS_URL` through
 * `loadConfigFromEnv`): a bus that would keep in memory what was meant for
 * that Redis is refused with a `ConfigError` saying what to pass.
 */
export function adapterOf(options: EventBusOptions): TransportAdapter {
  if (options.transport !== undefined) {
    return adapterValue<TransportAdapter>(options.transport, 'createEventBus({ transport })');
  }
  if (redisGiven(options.config)) {
    throw new ConfigError(
      "the options name a Redis (redis.url or redis.cluster; REDIS_URL or REDIS_CLUSTER_NODES through loadConfigFromEnv) but no transport adapter was given, and the bus will not keep in this process what was meant for that Redis: pass transport: redisTransport() from 'commitbus/redis' (it takes its Redis from these options), or transportFromEnv() from 'commitbus/transports'",
    );
  }
  return defaultTransport();
}
