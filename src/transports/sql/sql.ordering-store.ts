import type { OutgoingEvent, SkippedRange } from '../../events/outgoing-event.js';
import type { RebaseLog, RebaseReply } from '../../ordering/lane-rebase.js';
import type { OrderingState } from '../../ordering/ordering-state.js';
import type { HaltedLane, LaneEvent, OrderingStore, StepReply } from '../../ordering/ordering-store.js';
import { SqlOrderingUnavailableError } from './errors/sql-ordering-unavailable.error.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import type { SqlWakeups } from './sql-wakeups.js';

/**
 * The SQL transport's `OrderingStore` while its lanes are being built: it
 * holds no lane, so every read is empty and truthful (nothing pending,
 * nothing halted, no re-base), and every call that would take or change a
 * lane, or an ordered event published, is refused with
 * {@link SqlOrderingUnavailableError}, before anything is written. A bus
 * whose events have no order key never calls those.
 */
export class SqlOrderingStore implements OrderingStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly options: { readonly gapWaitMs: number; readonly wakeups: SqlWakeups },
  ) {}

  /** Refuses a batch holding an ordered event: no lane takes it yet. */
  checkNumbering(events: readonly OutgoingEvent[]): void {
    if (events.some((event) => event.lane !== undefined))
      throw new SqlOrderingUnavailableError('publish ordered events');
  }

  /** See `LaneAppend` in sql.event-log.ts: refused, no lane takes an event yet. */
  async appendInLane(
    _tx: SqlRunner,
    _lane: string,
    _payload: string,
    _position: number | undefined,
  ): Promise<boolean | SkippedRange> {
    throw new SqlOrderingUnavailableError('publish ordered events');
  }

  async take(): Promise<LaneEvent[]> {
    throw new SqlOrderingUnavailableError('take ordered lanes');
  }

  async waitAndClaim(): Promise<LaneEvent | undefined> {
    throw new SqlOrderingUnavailableError('take ordered lanes');
  }

  async steps(): Promise<StepReply[]> {
    throw new SqlOrderingUnavailableError('record steps of ordered lanes');
  }

  async maintain(): Promise<void> {
    throw new SqlOrderingUnavailableError('keep ordered lanes');
  }

  /** A worker leaving holds no lane: nothing to hand back. */
  async leave(): Promise<void> {}

  async halted(): Promise<HaltedLane[]> {
    return [];
  }

  async resume(): Promise<number> {
    return 0;
  }

  async rebase(): Promise<RebaseReply> {
    throw new SqlOrderingUnavailableError('re-base an ordered lane');
  }

  async rebased(): Promise<RebaseLog> {
    return { count: 0, recent: [] };
  }

  async pending(): Promise<number> {
    return 0;
  }

  async pendingInHalted(): Promise<number> {
    return 0;
  }

  async inspect(): Promise<OrderingState> {
    throw new SqlOrderingUnavailableError('inspect ordered lanes');
  }
}
