import type { DataSource, EntityManager } from 'typeorm';
import type { AppendResult, OutgoingEvent } from './outgoing-event.js';

/**
 * The publishing side of a transport that keeps its events in the
 * application's own database (the SQL transport): it appends a unit of
 * work's events inside that unit of work's transaction, so they exist
 * exactly when its rows do, with no outbox row and no relay hop. A unit of
 * work uses it only when its transaction runs on {@link dataSource} (the
 * same DataSource object); any other unit of work goes through the outbox.
 *
 * Contract, for a second implementation:
 * - {@link publishIn} writes every statement through `manager`'s query runner,
 *   inside its open transaction, and commits nothing itself: a rollback (or a
 *   COMMIT the database refuses) leaves no trace of the events, a commit makes
 *   all of them visible at once, and a worker of any process may take them
 *   from then on (a wake-up it sends in the transaction is heard on commit
 *   only).
 * - It does what `EventPublisher.publish` does with the same events
 *   (dedupe by id within the dedupe window, delayed events held back, ordered
 *   events into their lanes or refused with the transport's coded error) and
 *   resolves to the same {@link AppendResult}; it throws before the caller
 *   commits, never after.
 * - {@link committed} is called once the transaction committed, with what
 *   {@link publishIn} returned: wake this process's waiters there. It never
 *   throws.
 *
 * See `EventPublisher` (event-publisher.ts) for the publish outside a transaction.
 */
export interface TransactionalPublisher {
  /** The DataSource whose transactions {@link publishIn} can append in: compared by identity. */
  readonly dataSource: DataSource;
  /**
   * Appends `events`, encoded, in order, inside the open transaction of
   * `manager` (a unit of work's EntityManager, bound to its query runner),
   * visible only once that transaction commits; resolves to what
   * `publish()` resolves to for the same events.
   */
  publishIn(manager: EntityManager, events: readonly OutgoingEvent[]): Promise<AppendResult>;
  /** The transaction {@link publishIn} appended in committed: wakes this process's workers. */
  committed(result: AppendResult): void;
}
