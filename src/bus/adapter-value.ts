import { ConfigError } from '../config/errors/config.error.js';
import type { TransportAdapter } from './transport.js';

/**
 * `value` when it is a transport adapter (an object with `open`, as
 * `redisTransport()`, `sqlTransport()` and `sqliteTransport()` return); else a `ConfigError`
 * saying what to pass: the old string names (`'bullmq'`, `'memory'`), an
 * adapter factory not called (`redisTransport` for `redisTransport()`), `null`
 * or any other value would otherwise fail later with a bare `TypeError`.
 * @param where - the option, for the message (`createEventBus({ transport })`).
 * @param needs - the method the caller will call on it.
 */
export function adapterValue<T extends Partial<TransportAdapter>>(
  value: unknown,
  where: string,
  needs: 'open' | 'routerStores' = 'open',
): T {
  const fix =
    "give an adapter value: redisTransport({ url }) from 'commitbus/redis', sqlTransport({ dataSource }) or sqliteTransport({ file }) from 'commitbus/sql', or transportFromEnv() from 'commitbus/transports'";
  if (typeof value === 'string') {
    throw new ConfigError(`${where} no longer takes a name (got ${JSON.stringify(value)}): ${fix}`);
  }
  if (typeof value === 'function') {
    const name = value.name === '' ? 'the adapter factory' : value.name;
    throw new ConfigError(`${where} got the function ${name} itself: call it (${name}()), or ${fix}`);
  }
  if (typeof value !== 'object' || value === null) {
    throw new ConfigError(
      `${where} must be a transport adapter, got ${value === null ? 'null' : typeof value}: ${fix}`,
    );
  }
  const adapter = value as Partial<TransportAdapter>;
  if (needs === 'open' && typeof adapter.open !== 'function') {
    throw new ConfigError(`${where} has no open() method, so it is not a transport adapter: ${fix}`);
  }
  return value as T;
}
