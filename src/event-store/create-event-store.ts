import { EventStore } from './event-store.js';
import type { EventStoreOptions } from './event-store-options.js';

/** Makes an event store on `options.dataSource` (see {@link EventStore}). */
export function createEventStore(options: EventStoreOptions): EventStore {
  return new EventStore(options);
}
