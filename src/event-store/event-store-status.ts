import type { EntityManager } from 'typeorm';
import type { EventQueue } from './event-queue.js';
import { haltedEvent } from './operator-actions.js';
import type { HistoryEvent } from './store-event.js';

/** Where an event store stands (`store.status()`): a few reads of its state rows, cheap enough for every scrape. */
export interface EventStoreStatus {
  /** The version the tables are at: the last handled event, and so how many were handled (versions have no gaps). */
  readonly version: number;
  /** Events queued and not handled yet (by any process). */
  readonly queued: number;
  /** The event the store is halted at, with its `error`, or null when it is not halted. */
  readonly halted: HistoryEvent | null;
  /** Whether this process is the store's writer now. */
  readonly writer: boolean;
}

/** Reads an {@link EventStoreStatus} from the queue's state rows and the next event's history row. */
export async function readEventStoreStatus(
  queue: EventQueue,
  manager: EntityManager,
  writer: boolean,
): Promise<EventStoreStatus> {
  const { queued, handled } = await queue.versions(manager);
  const halted = queued > handled ? await haltedEvent(queue, manager, handled) : undefined;
  return { version: handled, queued: queued - handled, halted: halted ?? null, writer };
}
