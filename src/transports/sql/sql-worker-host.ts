import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { runDrain } from '../../handlers/drain.js';
import type { HandlerJob } from '../../handlers/handler-job.js';
import type { TransportWorker, WorkerRuntime } from '../../handlers/handler-worker.js';
import type { DeadLetterSink } from '../../handlers/observed-dead-letters.js';
import type { WorkerHost } from '../../handlers/worker-host.js';
import { describeError, type Logger } from '../../support/logger.js';
import { PeriodicTask } from '../../support/periodic-task.js';
import { NO_ANSWER, readWithin } from '../../support/read-within.js';
import { SqlLeaseLostError } from './errors/sql-lease-lost.error.js';
import { SqlWorkerStartedError } from './errors/sql-worker-started.error.js';
import type { SqlDeadLetterStore } from './sql.dead-letter-store.js';
import type { SqlEventLog } from './sql.event-log.js';
import type { SqlHandlerJobQueue } from './sql.job-queue.js';
import { type ClaimedJob, SqlJobRunner, type SqlJobSource } from './sql-job-runner.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** What the worker host runs on. */
export interface SqlWorkerHostDeps {
  /** The bus's name, in the worker's id. */
  readonly bus: string;
  /** Where the drains read. */
  readonly log: SqlEventLog;
  /** Where handler jobs wait; the runner claims them. */
  readonly jobs: SqlHandlerJobQueue & SqlJobSource;
  /** Where given-up work goes. */
  readonly deadLetters: SqlDeadLetterStore;
  /** Wake-ups of new work. */
  readonly wakeups: SqlWakeups;
  /** How often to look for work no wake-up told of. */
  readonly pollMs: number;
  /** Drains each worker of this process runs side by side. */
  readonly drains: number;
  /** How often the worker deletes expired dedupe ids, in milliseconds. */
  readonly pruneEveryMs: number;
}

/** How long past the handlers' shutdown time a stop waits for a statement still out, in milliseconds. */
const STOP_GRACE_MS = 2_000;

interface Running {
  readonly id: string;
  readonly runner: SqlJobRunner;
  readonly prune: PeriodicTask;
  readonly logger: Logger;
  stopping: boolean;
  drain: Promise<void>;
}

/**
 * A worker in this process on the SQL transport: `drains` loops side by
 * side, each running one drain after another over the event log (each lives
 * `drains.ttlMs` or `maxEvents`, then the next starts; a drain waits on
 * wake-ups and the poll while the log is empty; the loops claim different
 * events, as drains of other processes do),
 * a runner of handler jobs claiming rows under a lease
 * (`handlers.lockDurationMs`), and an upkeep deleting expired dedupe ids
 * every `pruneEveryMs` (outside any publishing transaction). Other processes run workers of their own on
 * the same tables; the leases keep them apart.
 */
export class SqlWorkerHost implements WorkerHost {
  private worker: Running | undefined;
  private drains = 0;

  constructor(private readonly deps: SqlWorkerHostDeps) {}

  async startWorker(runtime: WorkerRuntime): Promise<TransportWorker> {
    if (this.worker !== undefined) throw new SqlWorkerStartedError();
    const id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    const { config, logger, dispatcher, solo } = runtime;
    const enqueue = (jobs: HandlerJob[]) => this.deps.jobs.enqueue(jobs);
    const runner = new SqlJobRunner(
      this.deps.jobs,
      { dispatcher, enqueue, deadLetters: this.deps.deadLetters },
      {
        worker: id,
        concurrency: config.handlers.concurrency,
        leaseMs: config.handlers.lockDurationMs,
        pollMs: this.deps.pollMs,
        wakeups: this.deps.wakeups,
        logger,
        run: (claimed, work) => (claimed.deliveries > 1 ? solo.alone(work) : solo.shared(work)),
        deadLetters: (claimed) => this.leasedDeadLetters(claimed),
      },
    );
    const prune = new PeriodicTask(
      'pruning expired dedupe ids',
      this.deps.pruneEveryMs,
      () => this.deps.log.pruneExpiredIds(),
      logger,
    );
    const running: Running = { id, runner, prune, logger, stopping: false, drain: Promise.resolve() };
    this.worker = running;
    this.deps.wakeups.resume();
    runner.start();
    prune.start({ now: false });
    const loops = Array.from({ length: this.deps.drains }, () => this.drainLoop(running, runtime));
    running.drain = Promise.all(loops).then(() => {});
    return { close: (timeoutMs) => this.stop(running, timeoutMs) };
  }

  /** Dead letters of one run of a job, kept only while its claim holds the job. */
  private leasedDeadLetters(claimed: ClaimedJob): DeadLetterSink {
    const { jobs, deadLetters } = this.deps;
    return {
      add: async (letters) => {
        const held = await jobs.whileHeld(claimed.job.jobId, claimed.lease, async (tx) => {
          await deadLetters.addWith(tx, letters);
        });
        if (!held) throw new SqlLeaseLostError(claimed.job.jobId);
      },
    };
  }

  /** Stops the worker, if one runs, waiting for what it runs. */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.worker !== undefined) await this.stop(this.worker, timeoutMs);
  }

  private async drainLoop(running: Running, runtime: WorkerRuntime): Promise<void> {
    const { config, logger, dispatcher, solo } = runtime;
    while (!running.stopping) {
      try {
        const result = await runDrain({
          log: this.deps.log,
          dispatcher,
          enqueue: (jobs) => this.deps.jobs.enqueue(jobs),
          deadLetters: this.deps.deadLetters,
          limits: config.drains,
          consumer: `${running.id}:${++this.drains}`,
          stopping: () => running.stopping,
          solo,
        });
        runtime.onDrain?.(result);
      } catch (error) {
        logger.error({ error: describeError(error).message }, 'SQL drain failed; starting another');
        await this.deps.wakeups.wait('events', this.deps.pollMs);
      }
    }
  }

  private async stop(running: Running, timeoutMs: number): Promise<void> {
    if (running.stopping) return;
    running.stopping = true;
    this.deps.wakeups.interrupt();
    // A claim stuck on a database that stopped answering must not hold the shutdown: after the
    // handlers' time and a grace, what still runs is left (its rows go back when their leases lapse).
    const stopped = await readWithin(
      () => Promise.all([running.drain, running.runner.close(timeoutMs), running.prune.stop()]),
      timeoutMs + STOP_GRACE_MS,
    );
    if (stopped === NO_ANSWER) {
      running.logger.warn(
        { timeoutMs },
        'SQL worker stopped with a statement still waiting on the database; its claims go back when their leases lapse',
      );
    }
    if (this.worker === running) this.worker = undefined;
  }
}
