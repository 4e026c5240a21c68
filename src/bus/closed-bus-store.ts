import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import { BusClosedError } from './errors/bus-closed.error.js';

/**
 * `store` as `bus.deadLetters` uses it: once `closed()` says the bus was
 * closed, every call rejects with {@link BusClosedError} (as `bus.status()`
 * does), rather than with whatever the transport's closed connection says.
 * The workers' own writes go to the transport's store, not through this.
 */
export function closedBusStore(store: DeadLetterStore, closed: () => boolean): DeadLetterStore {
  const open = <T>(action: string, call: () => Promise<T>): Promise<T> =>
    closed() ? Promise.reject(new BusClosedError(action)) : call();
  return {
    add: (letters) => open('store dead letters', () => store.add(letters)),
    counts: () => open('count the dead letters', () => store.counts()),
    list: (filter, onCorrupt) => open('list the dead letters', () => store.list(filter, onCorrupt)),
    get: (id) => open('read a dead letter', () => store.get(id)),
    remove: (letters) => open('remove dead letters', () => store.remove(letters)),
  };
}
