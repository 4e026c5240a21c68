import type { AppendResult, OutgoingEvent } from './outgoing-event.js';

/**
 * The publishing side of a transport: where serialized events go. An adapter
 * (`commitbus/redis`, `commitbus/sql`) implements it; the bus and the
 * outbox relay publish through it.
 */
export interface EventPublisher {
  /**
   * Appends events, in order, in one round trip, and makes sure a worker will
   * take them. Drops ids accepted within `dedupeWindowMs`; holds delayed
   * events back until `EventPublisher.releaseDue` finds them due.
   */
  publish(events: readonly OutgoingEvent[]): Promise<AppendResult>;
  /** Moves up to `limit` due delayed events to the workers; resolves to how many. */
  releaseDue(limit: number): Promise<number>;
}
