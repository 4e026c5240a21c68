import { setTimeout as delay } from 'node:timers/promises';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { describeError, type Logger } from '../support/logger.js';
import { retryDelay } from '../support/retry-policy.js';
import { withTransactionGate } from '../uow/transaction-gate.js';
import type { UnitOfWorkBus } from '../uow/unit-of-work-bus.js';
import { refuseAbandoned } from './cycle-attempt.js';
import { timedOut } from './cycle-failure.js';
import { closeConnection, endSession } from './end-session.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import { WriterConflictError } from './errors/writer-conflict.error.js';
import type { CycleSetting } from './event-cycle.js';
import type { EventQueue } from './event-queue.js';
import { haltRetryPolicy } from './event-store-options.js';
import type { FailureNotices } from './failure-notices.js';
import { keepingAlive, limitIdle } from './keep-alive.js';
import type { ListenerQueue } from './listener-queue.js';
import { type BatchOutcome, recordTimedOut, runBatch, StepTimedOut } from './run-batch.js';
import { type CacheTuning, detectSideEffects } from './side-effects.js';
import type { VersionWatch } from './version-watch.js';
import { type WriterLock, writerLock } from './writer-lock.js';
import { checkWriterPool } from './writer-pool.js';

/** How the writer paces itself. */
export interface ProcessorSettings {
  /** Events handled in one transaction at most. */
  readonly batchSize: number;
  /** How often an idle writer looks for events dispatched by other processes, in ms. */
  readonly pollMs: number;
  /** How often a process that is not the writer tries to become it, in ms. */
  readonly takeoverMs: number;
  /** The writer lease on SQLite, in ms. */
  readonly leaseMs: number;
  /** The first wait before a failed event is retried, in ms; doubles per attempt. */
  readonly retryDelayMs: number;
  /** The longest wait between retries, in ms. */
  readonly maxRetryDelayMs: number;
  /** How long PostgreSQL lets the writer's connection wait on this process (see EventStoreOptions). */
  readonly writerIdleTimeoutMs: number;
  /** This process's name as a writer. */
  readonly owner: string;
  /** Where failures go. */
  readonly logger: Logger;
}

/** What the writer needs. */
export interface ProcessorParts {
  readonly dataSource: DataSource;
  readonly queue: EventQueue;
  readonly setting: CycleSetting;
  readonly bus: UnitOfWorkBus | undefined;
  readonly watch: VersionWatch;
  readonly listeners: ListenerQueue;
  /** Where recorded failures (halts, rejections) are logged and heard. */
  readonly failures: FailureNotices;
}

/**
 * The writer loop: becomes the one writer, handles queued events in batches
 * in `v` order, halts at a failing event and retries it with backoff (or at
 * once after an operator's retry, correction or skip), hands each commit's
 * events to the listener queue. A lost connection or lock makes it step back
 * and try again.
 */
export class StoreProcessor {
  private runner: QueryRunner | undefined;
  private lock: WriterLock | undefined;
  private halt: { v: number; retryAt: number } | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private chain: Promise<unknown> = Promise.resolve();
  private writer = false;
  private tuning: CacheTuning | undefined;
  /** The writer connection's server process (PostgreSQL), to end it when a step times out. */
  private backendPid: number | undefined;
  /** The last event whose step timed out here: recorded as failed at its turn, not run again at once. */
  private lastTimeout: StepTimedOut | undefined;

  constructor(
    private readonly parts: ProcessorParts,
    private readonly settings: ProcessorSettings,
  ) {}

  /** Whether this process is the writer now. */
  get isWriter(): boolean {
    return this.writer;
  }

  /** Starts the loop (once); throws when the DataSource's pool cannot spare the writer a connection. */
  start(): void {
    checkWriterPool(this.parts.dataSource);
    this.loop ??= this.run();
  }

  /** Cuts the current wait short: events were queued or an operator acted. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * SQLite, the writer and not halted: queues events (`append`) and handles them in the same
   * transaction, one commit instead of two (the dispatch batcher's groups). The batch runs under a
   * savepoint: when it fails the events still commit, queued, and the writer goes on as after any
   * failed batch. Resolves with their versions; `undefined` when it did not run (nothing queued).
   */
  inline(append: (manager: EntityManager) => Promise<number[]>): Promise<number[] | undefined> {
    if (this.parts.queue.tables.dialect !== 'sqlite' || !this.writer) return Promise.resolve(undefined);
    return this.serial(async () => {
      const { runner, halt, lastTimeout } = this;
      if (!this.writer || this.stopping || halt || lastTimeout || runner === undefined) return;
      const tuning = await this.tune(runner).catch(() => undefined);
      const batch = await this.gate(async () => {
        if (tuning === undefined || !(await (this.lock?.acquire() ?? false))) return undefined;
        const { handled } = await this.parts.queue.peek(runner.manager);
        await runner.startTransaction();
        try {
          const versions = await append(runner.manager);
          const parts = { ...this.parts, runner, tuning };
          const outcome = await runBatch(parts, handled, this.settings.batchSize).then(
            (done) => ({ done }),
            (failed: unknown) => ({ failed }),
          );
          await runner.commitTransaction();
          return { versions, outcome };
        } catch {
          if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => {});
          return undefined;
        }
      }).catch(() => undefined);
      if (batch === undefined) return;
      // Committed: from here a failure rejects the dispatches, never queues them twice.
      if ('done' in batch.outcome) await this.settle(runner, batch.outcome.done);
      else if (batch.outcome.failed instanceof StepTimedOut) await this.timedOut(batch.outcome.failed);
      else this.wake(); // the batch rolled back alone: the writer's next turn runs it
      return batch.versions;
    });
  }

  /** Stops after the current batch and gives the writer role up. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    await this.drop();
  }

  /**
   * Runs `fn` as the writer between two batches, on the writer's connection
   * (waiting up to `timeoutMs` to become the writer). Replay uses it.
   */
  async asWriter<T>(timeoutMs: number, fn: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const outcome = await this.serial(async () => {
        try {
          const runner = await this.connect();
          if (!(await this.gate(() => this.lock?.acquire() ?? Promise.resolve(false)))) return undefined;
          return {
            value: await this.keptAlive(runner, () => fn(runner)).catch(async (error: unknown) => {
              if (timedOut(error)) await this.discard();
              throw error;
            }),
          };
        } finally {
          // A store that was never started gives the role (and its connection) back at once.
          if (this.loop === undefined) await this.drop();
        }
      });
      if (outcome !== undefined) return outcome.value;
      // `>=`: a timeout of 0 fails after the first try, without waiting a takeover period.
      if (Date.now() >= deadline) {
        throw new EventStoreUsageError(
          `another process has been the event store's writer for ${timeoutMs} ms: stop its store (or wait) and try again`,
        );
      }
      await delay(this.settings.takeoverMs);
    }
  }

  private keptAlive<T>(runner: QueryRunner, fn: () => Promise<T>): Promise<T> {
    const { dialect } = this.parts.queue.tables;
    return keepingAlive(runner, dialect, this.settings.writerIdleTimeoutMs, fn);
  }

  // One turn of the loop or one asWriter call at a time, on the one writer connection.
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => {});
    return next;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const wait = await this.serial(() => this.turn());
        if (wait > 0) await this.sleep(wait);
      } catch (error) {
        if (error instanceof WriterConflictError) {
          // An operator skipped the event this writer was on (or a second writer ran): read the state again.
          this.settings.logger.info(
            { error: describeError(error) },
            'event store writer: the handled version moved; reading it again',
          );
          continue;
        }
        this.writer = false;
        this.settings.logger.warn(
          { error: describeError(error) },
          'event store writer: a database call failed; stepping back and trying again',
        );
        await this.drop();
        await this.sleep(this.settings.takeoverMs);
      }
    }
  }

  // One step of the loop; returns how long to wait before the next.
  private async turn(): Promise<number> {
    const { queue, setting, bus, watch } = this.parts;
    const runner = await this.connect();
    this.writer = await this.gate(() => this.lock?.acquire() ?? Promise.resolve(false));
    if (!this.writer) {
      this.halt = undefined; // not the writer: waiters here must go by the database, not this memory
      return this.settings.takeoverMs;
    }
    const { handled, more } = await this.gate(() => queue.peek(runner.manager));
    watch.handled(handled);
    if (this.halt !== undefined) {
      const halt = this.halt;
      const [row] = await this.gate(() => queue.history(runner.manager, [halt.v]));
      const operatorActed = handled >= halt.v || row === undefined || row.attempts === 0;
      if (!operatorActed && Date.now() < halt.retryAt)
        return Math.min(this.settings.pollMs * 5, halt.retryAt - Date.now());
      this.halt = undefined;
    }
    if (!more) return this.settings.pollMs;
    let limit = this.settings.batchSize;
    const timed = this.lastTimeout;
    if (timed !== undefined && handled + 1 < timed.event.v)
      limit = Math.min(limit, timed.event.v - handled - 1);
    else if (timed !== undefined) {
      this.lastTimeout = undefined;
      if (handled + 1 === timed.event.v) {
        const recorded = await this.gate(() => recordTimedOut({ runner, queue }, handled, timed));
        if (recorded !== undefined) return this.settle(runner, recorded);
      }
    }
    const tuning = await this.tune(runner);
    let outcome: BatchOutcome;
    try {
      outcome = await this.gate(() =>
        this.keptAlive(runner, () => runBatch({ runner, queue, setting, bus, tuning }, handled, limit)),
      );
    } catch (error) {
      if (!(error instanceof StepTimedOut)) throw error;
      await this.timedOut(error);
      return 0;
    }
    return this.settle(runner, outcome);
  }

  // A step did not settle: the batch was dropped; the events before it run again, then it is recorded as failed.
  private async timedOut(error: StepTimedOut): Promise<void> {
    this.settings.logger.warn(
      { v: error.event.v, type: error.event.type, failure: { ...error.failure, stack: undefined } },
      `event store writer: a step of v${error.event.v} (${error.event.type}) did not settle in time; the batch is dropped with its connection, the events before it are handled again and v${error.event.v} is recorded as failed`,
    );
    this.lastTimeout = error;
    await this.discard();
    await error.uow?.afterRollback(error.failure).catch((hookError: unknown) => {
      this.settings.logger.warn(
        { error: describeError(hookError) },
        'event store: a rollback hook of a timed-out event failed',
      );
    });
  }

  // After a batch committed: waiters, bus events, listeners, and the halt when an event failed.
  private async settle(runner: QueryRunner, outcome: BatchOutcome): Promise<number> {
    const { queue, watch, listeners } = this.parts;
    watch.handled(outcome.version, outcome.handled);
    const hookErrors = await outcome.afterCommit();
    for (const error of hookErrors) {
      this.settings.logger.warn(
        { error: describeError(error) },
        'event store: a bus event could not be published after commit; the outbox relay sends it',
      );
    }
    listeners.push(outcome.handled);
    this.parts.failures.rejected(outcome.handled);
    if (outcome.failed === undefined) return 0;
    const { event, failure } = outcome.failed;
    const attempts = event.attempts + 1;
    const wait = retryDelay(haltRetryPolicy(this.settings), attempts);
    this.halt = { v: event.v, retryAt: Date.now() + wait };
    const [row] = await this.gate(() => queue.history(runner.manager, [event.v]));
    if (row !== undefined) watch.halted(row);
    const recorded = row ?? { ...event, status: 'queued', events: [], attempts, error: failure };
    this.parts.failures.halted(recorded, failure, wait);
    return Math.min(wait, this.settings.pollMs * 5);
  }

  /** What else changes the models' tables, looked up once per writer connection. */
  async tune(runner: QueryRunner): Promise<CacheTuning> {
    if (this.tuning !== undefined) return this.tuning;
    const tuning = await this.gate(() =>
      detectSideEffects(runner.manager, this.parts.queue.tables, this.parts.setting.models),
    );
    if (tuning.reasons.length > 0) {
      this.settings.logger.info(
        { uncached: [...tuning.uncached], reasons: tuning.reasons },
        "event store writer: something besides the store changes the models' tables; their written rows are read back and each event is flushed before the next",
      );
    }
    this.tuning = tuning;
    return tuning;
  }

  private async connect(): Promise<QueryRunner> {
    if (this.runner !== undefined && !this.runner.isReleased) return this.runner;
    const runner = this.parts.dataSource.createQueryRunner();
    await runner.connect();
    if (this.parts.queue.tables.dialect === 'postgres') {
      await limitIdle(runner, this.settings.writerIdleTimeoutMs);
      const [row] = (await runner.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
      this.backendPid = row?.pid;
    }
    const { owner, leaseMs } = this.settings;
    const lock = await writerLock(this.parts.queue.tables, runner, owner, leaseMs); // before the runner is kept
    refuseAbandoned(runner);
    this.runner = runner;
    this.lock = lock;
    return runner;
  }

  private async drop(): Promise<void> {
    this.writer = false;
    this.halt = undefined; // another process may resume the halt this one saw
    const runner = this.runner;
    const lock = this.lock;
    this.runner = undefined;
    this.lock = undefined;
    const unlocked = lock === undefined ? true : await this.gate(() => lock.release()).catch(() => false);
    if (runner === undefined || runner.isReleased) return;
    // The session may still hold the writer lock: the pool must close this connection, not lend it out.
    if (!unlocked && (await closeConnection(runner, 'the event store writer lock could not be released')))
      return;
    await runner.release().catch(() => {});
  }

  /**
   * Throws the writer's connection away after a step timed out: its
   * abandoned code may still have a query in flight there, holding the
   * batch's row locks and the writer lock. The connection is closed first
   * (an idle session ends at once, a busy one within
   * `client_connection_check_interval`), then its server process is ended
   * and waited for, so that this process, not a stand-by, usually takes
   * the writer role back and records the failure. SQLite: the batch was
   * rolled back already, on the one connection kept.
   */
  private async discard(): Promise<void> {
    const runner = this.runner;
    const pid = this.backendPid;
    if (runner === undefined || runner.isReleased || this.parts.queue.tables.dialect === 'sqlite') return;
    this.writer = false;
    this.runner = undefined;
    this.lock = undefined;
    this.backendPid = undefined;
    await endSession(runner, pid, this.parts.dataSource, this.settings.logger);
  }

  private gate<T>(fn: () => Promise<T>): Promise<T> {
    return withTransactionGate(this.parts.dataSource, fn);
  }

  private sleep(ms: number): Promise<void> {
    // A wake during the last turn (events queued after it read the queue) cuts this wait.
    if (this.stopping || this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        this.woken = false;
        done();
      };
    });
  }
}
