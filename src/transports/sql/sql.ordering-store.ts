import type { OutgoingEvent, SkippedRange } from '../../events/outgoing-event.js';
import type { OrderingStore } from '../../ordering/ordering-store.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import type { SqlWakeups } from './sql-wakeups.js';

const notYet = (..._args: unknown[]): never => {
  throw new Error('SqlOrderingStore: not written yet');
};

/** STUB (to be written): the `OrderingStore` port on tables of lanes, their events and workers. */
export class SqlOrderingStore implements OrderingStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly options: { readonly gapWaitMs: number; readonly wakeups: SqlWakeups },
  ) {}
  /** Refuses a batch whose positions cannot be right (as the other adapters do). */
  checkNumbering(_events: readonly OutgoingEvent[]): void {}
  /** See `LaneAppend` in sql.event-log.ts. */
  appendInLane = (
    _tx: SqlRunner,
    _lane: string,
    _payload: string,
    _position: number | undefined,
  ): Promise<boolean | SkippedRange> => notYet();
  take = notYet;
  waitAndClaim = notYet;
  steps = notYet;
  maintain = notYet;
  leave = notYet;
  halted = notYet;
  resume = notYet;
  rebase = notYet;
  rebased = notYet;
  pending = notYet;
  pendingInHalted = notYet;
  inspect = notYet;
}
