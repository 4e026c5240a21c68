import { ConfigError } from '../config/errors/config.error.js';
import { redisGiven } from '../config/redis-given.js';
import { transportAsked } from '../config/transport-asked.js';
import { defaultTransport } from '../transports/select/default-transport.js';
import { adapterValue } from './adapter-value.js';
import type { EventBusOptions } from './event-bus-options.js';
import type { TransportAdapter } from './transport.js';

/**
 * The adapter a bus opens: the one given, else the embedded default, unless
 * the options name a Redis (`redis.url`, `REDIS_URL` through
 * `loadConfigFromEnv`): a bus that would keep in memory what was meant for
 * that Redis is refused with a `ConfigError` saying what to pass, as are
 * options loaded with `COMMITBUS_TRANSPORT=sql` or `sqlite`.
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
  const asked = transportAsked(options.config);
  if (asked === 'sql' || asked === 'sqlite') {
    throw new ConfigError(
      `the options were loaded with COMMITBUS_TRANSPORT=${asked} but no transport adapter was given, and the bus will not run in this process's memory instead: pass transport: transportFromEnv({ dataSource }) from 'commitbus/transports' (it reads the same variables), or ${asked === 'sql' ? "sqlTransport({ dataSource }) from 'commitbus/sql'" : "sqliteTransport({ file }) from 'commitbus/sql'"}`,
    );
  }
  return defaultTransport();
}
