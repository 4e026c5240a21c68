import type { OutgoingEvent } from '../../events/outgoing-event.js';
import type { RebaseLog, RebaseReply } from '../../ordering/lane-rebase.js';
import type { OrderingState } from '../../ordering/ordering-state.js';
import type {
  HaltedLane,
  LaneEvent,
  LaneStep,
  OrderingStore,
  StepReply,
} from '../../ordering/ordering-store.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import { type LaneAppender, openLanes } from './sql-lane-append.js';
import { inspectLanes, pendingInHaltedLanes, pendingLaneEvents } from './sql-lane-inspect.js';
import { haltedLanes, rebasedLanes, rebaseLane, resumeLanes } from './sql-lane-operator.js';
import { applySteps } from './sql-lane-steps.js';
import { takeLanes } from './sql-lane-take.js';
import { type LaneContext, laneTables } from './sql-lane-tx.js';
import { leaveLanes, maintainLanes } from './sql-lane-upkeep.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** What a {@link SqlOrderingStore} is built with. */
export interface SqlOrderingStoreOptions {
  /** How long a sync lane waits for a missing position before it re-bases (`laneGapWaitMs`); 0: for ever. */
  readonly gapWaitMs: number;
  /** Wake-ups of queued lanes (`NOTIFY` on PostgreSQL). */
  readonly wakeups: SqlWakeups;
  /** The longest a worker waits for a queued lane no wake-up told it of (`sqlTransport`'s `pollMs`). */
  readonly pollMs: number;
}

/**
 * `OrderingStore` on the SQL transport's tables (`commitbus_lanes`,
 * `commitbus_lane_events`, `commitbus_lane_workers`,
 * `commitbus_lane_counters`), with the semantics of the Redis scripts
 * (`ordered-*.lua`): every call is one short transaction, run again on a
 * deadlock or serialization failure. Ordered events enter their lanes in
 * the publishing transaction ({@link SqlOrderingStore.openLanes}); workers
 * take queued lanes oldest first under a lease (`commitbus_lane_workers`).
 *
 * Concurrency, for many worker processes on PostgreSQL: a worker-side call
 * first locks the lane rows it changes (sorted, or `SKIP LOCKED` for the
 * lanes it takes from the queue and the upkeep's, so it never waits for a
 * lane another transaction holds), then the bus's counters row, so
 * ownerships, leases and `seq` change one transaction at a time; a publish
 * locks only its lanes' rows (never the counters row). On SQLite each call
 * is a write transaction (`BEGIN IMMEDIATE`). Times are the database's clock.
 */
export class SqlOrderingStore implements OrderingStore {
  private readonly ctx: LaneContext;

  constructor(
    db: SqlDb,
    bus: string,
    private readonly options: SqlOrderingStoreOptions,
  ) {
    this.ctx = { db, bus, tables: laneTables(db), gapWaitMs: options.gapWaitMs, wakeups: options.wakeups };
  }

  /** For the event log: opens the lanes of a publish's ordered events in `tx` (see `LaneIntake`). */
  openLanes(tx: SqlRunner, events: readonly OutgoingEvent[]): Promise<LaneAppender | undefined> {
    return openLanes(this.ctx, tx, events);
  }

  async take(worker: string, max: number): Promise<LaneEvent[]> {
    return (await takeLanes(this.ctx, worker, max)).events;
  }

  /**
   * Takes one queued lane; with none, waits for a wake-up (at most `blockMs`,
   * and no longer than the poll, for lanes other SQLite processes queued) and
   * tries once more.
   */
  async waitAndClaim(worker: string, blockMs: number): Promise<LaneEvent | undefined> {
    const first = await takeLanes(this.ctx, worker, 1);
    if (first.lanes > 0) return first.events[0];
    await this.ctx.wakeups.wait('lanes', Math.max(1, Math.min(blockMs, this.options.pollMs)));
    return (await takeLanes(this.ctx, worker, 1)).events[0];
  }

  async steps(worker: string, steps: readonly LaneStep[]): Promise<StepReply[]> {
    if (steps.length === 0) return [];
    return applySteps(this.ctx, worker, steps);
  }

  maintain(worker: string, leaseMs: number): Promise<void> {
    return maintainLanes(this.ctx, worker, leaseMs);
  }

  leave(worker: string): Promise<void> {
    return leaveLanes(this.ctx, worker);
  }

  halted(): Promise<HaltedLane[]> {
    return haltedLanes(this.ctx);
  }

  resume(mode: 'redrive' | 'skip', lanes: readonly string[]): Promise<number> {
    return resumeLanes(this.ctx, mode, lanes);
  }

  rebase(lane: string, position?: number): Promise<RebaseReply> {
    return rebaseLane(this.ctx, lane, position);
  }

  rebased(limit: number): Promise<RebaseLog> {
    return rebasedLanes(this.ctx, limit);
  }

  pending(): Promise<number> {
    return pendingLaneEvents(this.ctx);
  }

  pendingInHalted(): Promise<number> {
    return pendingInHaltedLanes(this.ctx);
  }

  inspect(lanes: Iterable<string>, workers: Iterable<string>): Promise<OrderingState> {
    return inspectLanes(this.ctx, lanes, workers);
  }

  /** Ends the waits of {@link SqlOrderingStore.waitAndClaim} (and this transport's other waits: they look again). */
  interrupt(): void {
    this.ctx.wakeups.interrupt();
  }
}
