import type { OutgoingEvent, SkippedRange } from '../../events/outgoing-event.js';
import type { EventLog } from '../../handlers/event-log.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import type { SqlWakeups } from './sql-wakeups.js';

/**
 * Takes an ordered event into its lane inside the publishing transaction
 * `tx` (after the dedupe check): `true` when taken, `false` when its
 * position was taken already (a copy), the re-base that skipped its
 * position when it came late. `SqlOrderingStore.appendInLane`.
 */
export type LaneAppend = (
  tx: SqlRunner,
  lane: string,
  payload: string,
  position: number | undefined,
) => Promise<boolean | SkippedRange>;

const notYet = (..._args: unknown[]): never => {
  throw new Error('SqlEventLog: not written yet');
};

/** STUB (to be written): the `EventLog` port on the `commitbus_events` table. */
export class SqlEventLog implements EventLog {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly options: {
      readonly dedupeWindowMs: number;
      readonly wakeups: SqlWakeups;
      readonly toLane: LaneAppend;
    },
  ) {}
  append = notYet;
  /** Appends inside a transaction someone else holds (the unit of work's): the events exist exactly when it commits. */
  appendWith = (_tx: SqlRunner, _events: readonly OutgoingEvent[]): never => notYet();
  releaseDue = notYet;
  delayed = notYet;
  read = notYet;
  claimStale = notYet;
  hasStale = notYet;
  ack = notYet;
  backlog = notYet;
  oldestAt = notYet;
  removeConsumer = notYet;
}
