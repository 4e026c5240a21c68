import type { QueryRunner } from 'typeorm';
import { CommitbusError } from '../support/commitbus-error.js';
import { inInternalSpan } from '../tracing/internal-span.js';
import { AbortWatch } from '../uow/abort-watch.js';
import { UnitOfWork } from '../uow/unit-of-work.js';
import type { UnitOfWorkBus } from '../uow/unit-of-work-bus.js';
import { BatchState } from './batch-state.js';
import { CycleFailure } from './cycle-failure.js';
import { EventStoreQueueGapError } from './errors/event-store-queue-gap.error.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import { WriterConflictError } from './errors/writer-conflict.error.js';
import { type CycleSetting, runCycle } from './event-cycle.js';
import { type EventQueue, type FinishedEvent, finishedEvent, type QueuedEvent } from './event-queue.js';
import type { CacheTuning } from './side-effects.js';
import type { HistoryEvent, StepFailure } from './store-event.js';

/** What one batch did. */
export interface BatchOutcome {
  /** Events handled (or ignored), as history, in order. */
  readonly handled: readonly HistoryEvent[];
  /** The event that failed, with its failure recorded, if one did. */
  readonly failed?: { readonly event: QueuedEvent; readonly failure: StepFailure };
  /** The handled version after the batch. */
  readonly version: number;
  /** Runs each handled event's unit-of-work commit hooks (its bus events go out); returns their errors. */
  readonly afterCommit: () => Promise<unknown[]>;
}

// The fast path failed at event `index` (or in the final flush): redo with savepoints.
class FastPathFailed extends CommitbusError {
  readonly code = 'COMMITBUS_EVENT_STORE_FAST_PATH_FAILED';
  constructor(readonly index: number) {
    super('fast path failed');
  }
}

const SAVEPOINT = 'commitbus_es_event';

/**
 * A step of `event` did not settle in time. Nothing of the batch is
 * committed. On PostgreSQL the transaction is left as it is (the abandoned
 * callback may have a query in flight on the connection, so the writer
 * throws the connection away); on SQLite it is rolled back before
 * {@link runBatch} rejects with this, inside the caller's transaction gate. The writer then commits the events before `event` and records
 * `failure` on it ({@link recordTimedOut}).
 */
export class StepTimedOut extends CommitbusError {
  /** Stable code, for logs: the writer handles it and never lets it reach a caller. */
  readonly code = 'COMMITBUS_EVENT_STORE_STEP_TIMED_OUT';
  constructor(
    readonly event: QueuedEvent,
    readonly failure: StepFailure,
    /** The event's unit of work, if the cycle made one: its rollback hooks are owed. */
    readonly uow: UnitOfWork | undefined,
  ) {
    super(`v${event.v} timed out in ${failure.step}: ${failure.message}`);
  }
}

/** What a batch runs on. */
export interface BatchParts {
  readonly runner: QueryRunner;
  readonly queue: EventQueue;
  readonly setting: CycleSetting;
  readonly bus: UnitOfWorkBus | undefined;
  /** Which rows the batch keeps, and whether each event's writes are flushed before the next. */
  readonly tuning: CacheTuning;
}

/**
 * Handles up to `limit` queued events (consecutive, right after version
 * `handled`) in one transaction, the handled version moving by
 * compare-and-set in it.
 *
 * First without savepoints, writes batched: when every event succeeds, that
 * is the whole story. When one fails, the transaction is rolled back and the
 * events up to it run again with a savepoint each, their writes flushed per
 * event: the failing event rolls back alone, its failure is recorded, the
 * ones before it commit and the ones after it wait. Traced as an INTERNAL
 * root span `event-store cycle` (from which version, to which, how many, the
 * version that failed).
 */
export function runBatch(parts: BatchParts, handled: number, limit: number): Promise<BatchOutcome> {
  return inInternalSpan(
    'event-store cycle',
    () => ({ 'commitbus.event_store.from_version': handled + 1, 'commitbus.event_store.limit': limit }),
    () => cycle(parts, handled, limit),
    (outcome) => ({
      'commitbus.event_store.version': outcome.version,
      'messaging.batch.message_count': outcome.handled.length,
      ...(outcome.failed === undefined
        ? {}
        : { 'error.type': 'event failed', 'commitbus.event_store.failed_version': outcome.failed.event.v }),
    }),
  );
}

/** One batch: the fast path without savepoints, redone with them from the event that failed it. */
async function cycle(parts: BatchParts, handled: number, limit: number): Promise<BatchOutcome> {
  if (limit > 1) {
    try {
      return await attempt(parts, handled, limit, false);
    } catch (error) {
      if (!(error instanceof FastPathFailed)) throw error;
      return attempt(parts, handled, error.index + 1, true);
    }
  }
  return attempt(parts, handled, limit, true);
}

async function attempt(
  parts: BatchParts,
  handled: number,
  limit: number,
  savepoints: boolean,
): Promise<BatchOutcome> {
  const { runner, queue, setting, tuning } = parts;
  let events: readonly QueuedEvent[] = [];
  const records: BatchRecords = { finished: [], history: [], committing: [], rolledBack: [] };
  const { finished, history, committing, rolledBack } = records;
  let failed: BatchOutcome['failed'];
  const state = new BatchState(runner, setting.models, {
    dialect: queue.tables.dialect,
    uncached: tuning.uncached,
  });
  state.attach();
  // A statement that failed in a cycle and was caught aborts the transaction on PostgreSQL.
  const watch = await AbortWatch.on(runner);
  await runner.startTransaction();
  try {
    await queue.lockForWrite(runner.manager);
    // Read inside the transaction, locked: an operator's correction made
    // before is the data handled; one made after waits for this commit.
    events = await queue.next(runner.manager, handled, limit, true);
    for (const [i, event] of events.entries()) {
      if (event.v !== handled + 1 + i) {
        throw new EventStoreQueueGapError(handled + 1 + i, event.v);
      }
    }
    await state.prefetch(events);
    for (const [i, event] of events.entries()) {
      failed = await cycleOne({ parts, state, watch, records, savepoints }, event, i);
      if (failed !== undefined) break;
    }
    try {
      await state.flush();
    } catch (error) {
      if (!savepoints) throw new FastPathFailed(events.length - 1);
      throw error;
    }
    state.detach();
    const version = handled + finished.length;
    await queue.finish(runner.manager, finished);
    if (failed !== undefined) await queue.recordFailure(runner.manager, failed.event.v, failed.failure);
    // Always by compare-and-set, even when nothing finished: an operator's skip
    // of the failing event may have committed meanwhile (between the fast path
    // and the redo), and its row must not get this attempt. Event rows first,
    // then the state row, in the order operator actions take them.
    if (!(await queue.advance(runner.manager, handled, version))) throw new WriterConflictError(handled);
    await runner.commitTransaction();
    return {
      handled: history,
      ...(failed === undefined ? {} : { failed }),
      version,
      afterCommit: async () => {
        const errors: unknown[] = [];
        for (const uow of committing) await uow.afterCommit().catch((error: unknown) => errors.push(error));
        for (const { uow, failure } of rolledBack)
          await uow.afterRollback(failure).catch((error: unknown) => errors.push(error));
        return errors;
      },
    };
  } catch (error) {
    state.detach();
    // Inside the caller's transaction gate: on SQLite no other work may start on the one connection first.
    const abandoned = error instanceof StepTimedOut && queue.tables.dialect === 'postgres';
    if (!abandoned && runner.isTransactionActive) await runner.rollbackTransaction().catch(() => {});
    throw error;
  } finally {
    watch?.stop();
  }
}

/** What the events of an attempt came to so far. */
interface BatchRecords {
  readonly finished: FinishedEvent[];
  readonly history: HistoryEvent[];
  /** Units of work of handled events: their commit hooks run after the commit. */
  readonly committing: UnitOfWork[];
  /** Units of work of failed or rejected events: their rollback hooks run after the commit. */
  readonly rolledBack: { uow: UnitOfWork; failure: StepFailure }[];
}

/** What {@link cycleOne} works in. */
interface CycleScope {
  readonly parts: BatchParts;
  readonly state: BatchState;
  readonly watch: AbortWatch | undefined;
  readonly records: BatchRecords;
  readonly savepoints: boolean;
}

/**
 * Runs the cycle of `event`, the `i`th of the attempt, and records what came
 * of it: handled (or ignored), rejected by its reducer (the batch goes on), or
 * failed, which it returns (the batch stops there). Without savepoints any
 * failure throws {@link FastPathFailed}; a step that timed out throws
 * {@link StepTimedOut}.
 */
async function cycleOne(
  { parts, state, watch, records, savepoints }: CycleScope,
  event: QueuedEvent,
  i: number,
): Promise<BatchOutcome['failed']> {
  const { runner, queue, setting, bus, tuning } = parts;
  if (savepoints) await savepoint(runner, queue.tables.dialect, i);
  let uow: UnitOfWork | undefined;
  const uowOf = () => {
    if (bus === undefined) {
      throw new EventStoreUsageError(
        'this event store has no bus: pass createEventStore({ bus }) to send bus events from the cycle',
      );
    }
    uow ??= new UnitOfWork(runner.manager, bus);
    return uow;
  };
  try {
    const out = await runCycle(setting, state, runner.manager, uowOf, event);
    if (savepoints || tuning.flushEachEvent)
      await state.flush().catch((error: unknown) => {
        throw new CycleFailure('apply', [event.type], error);
      });
    const status = out.known ? 'handled' : 'ignored';
    const record = finishedEvent(event.v, status, out);
    watch?.throwIfAborted();
    refuseRequestedRollback(uow, event);
    await uow?.registered();
    await uow?.beforeCommit();
    records.finished.push(record);
    records.history.push({
      ...event,
      type: out.type,
      data: out.data,
      status,
      result: out.result,
      events: out.events,
    });
    if (uow !== undefined) records.committing.push(uow);
    return undefined;
  } catch (error) {
    if (error instanceof CycleFailure && error.timedOut) throw new StepTimedOut(event, error.failure, uow);
    if (!savepoints) throw new FastPathFailed(i);
    // Drop the event's waiting writes first: the rollback statement would flush them.
    state.reset();
    await runner.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    if (error instanceof CycleFailure && error.rejected) {
      // A reducer's esFail: recorded as rejected (nothing of it written), and the batch goes on.
      const failure = error.failure;
      records.finished.push(
        finishedEvent(event.v, 'rejected', { ...event, result: undefined, events: [] }, failure),
      );
      records.history.push({ ...event, status: 'rejected', events: [], error: failure });
      if (uow !== undefined) records.rolledBack.push({ uow, failure });
      return undefined;
    }
    const failure =
      error instanceof CycleFailure ? error.failure : new CycleFailure('store', [event.type], error).failure;
    if (uow !== undefined) records.rolledBack.push({ uow, failure });
    return { event, failure };
  }
}

// `ctx.uow.rollback()`: the store commits a batch of cycles at once and cannot drop
// one cycle's writes and go on, so the event fails rather than acting committed.
function refuseRequestedRollback(uow: UnitOfWork | undefined, event: QueuedEvent): void {
  if (uow?.rollbackRequested !== true) return;
  throw new EventStoreUsageError(
    `the cycle of ${event.type} v${event.v} called ctx.uow.rollback(): an event store cycle cannot be rolled back on its own. Throw to fail the event (the writer halts at it), or return without writing or registering`,
  );
}

/**
 * Records the failure of a step that timed out on the next event to handle
 * (`handled + 1`) without running it again: its attempt counts, and the
 * writer halts at it as after any failure. Resolves to undefined, recording
 * nothing, when that event is not the one that timed out or an operator
 * acted on it since (its attempts or audit trail changed): it is run again
 * instead.
 */
export async function recordTimedOut(
  { runner, queue }: Pick<BatchParts, 'runner' | 'queue'>,
  handled: number,
  timed: StepTimedOut,
): Promise<BatchOutcome | undefined> {
  await runner.startTransaction();
  try {
    await queue.lockForWrite(runner.manager);
    const [event] = await queue.next(runner.manager, handled, 1, true);
    // An operator's retry or correction since (each adds to the audit trail) means: run it again.
    const same =
      event !== undefined &&
      event.v === timed.event.v &&
      event.attempts === timed.event.attempts &&
      event.audit.length === timed.event.audit.length;
    if (!same) {
      await runner.rollbackTransaction();
      return undefined;
    }
    const { failure } = timed;
    await queue.recordFailure(runner.manager, event.v, failure);
    if (!(await queue.advance(runner.manager, handled, handled))) throw new WriterConflictError(handled);
    await runner.commitTransaction();
    return { handled: [], failed: { event, failure }, version: handled, afterCommit: async () => [] };
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => {});
    throw error;
  }
}

// One round trip per event on PostgreSQL: release the last savepoint and open the next.
async function savepoint(runner: QueryRunner, dialect: 'postgres' | 'sqlite', i: number): Promise<void> {
  if (i === 0) await runner.query(`SAVEPOINT ${SAVEPOINT}`);
  else if (dialect === 'postgres')
    await runner.query(`RELEASE SAVEPOINT ${SAVEPOINT}; SAVEPOINT ${SAVEPOINT}`);
  else {
    await runner.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    await runner.query(`SAVEPOINT ${SAVEPOINT}`);
  }
}
