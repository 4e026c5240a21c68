import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import type { EventPublisher } from '../../events/event-publisher.js';
import type { AppendResult, OutgoingEvent } from '../../events/outgoing-event.js';
import { runDrain } from '../../handlers/drain.js';
import type { HandlerJob } from '../../handlers/handler-job.js';
import { countJobs, jobStateOf } from '../../handlers/handler-job-counts.js';
import type { HandlerJobQueue } from '../../handlers/handler-job-queue.js';
import type { TransportWorker, WorkerRuntime } from '../../handlers/handler-worker.js';
import { processHandlerJob } from '../../handlers/process-handler-job.js';
import type { WorkerHost } from '../../handlers/worker-host.js';
import { laneGapWaitMs } from '../../ordering/lane-rebase.js';
import type { WorkerOrdering, WorkerOrderingSource } from '../../ordering/worker-ordering.js';
import type { RouterStores } from '../../router/router-stores.js';
import type { ScheduleTickStore } from '../../scheduling/schedule-tick-store.js';
import type { Closable } from '../../support/closable.js';
import { describeError } from '../../support/logger.js';
import { MemoryWorkerStartedError } from './errors/memory-worker-started.error.js';
import { MemoryDeadLetterStore } from './memory.dead-letter-store.js';
import { MemoryEventLog } from './memory.event-log.js';
import { MemoryOrderingStore } from './memory.ordering-store.js';
import { MemoryScheduleTickStore } from './memory.schedule-tick-store.js';
import { MemorySchedulingRuleStore } from './memory.scheduling-rule-store.js';
import { MemoryJobRunner } from './memory-job-runner.js';
import { memoryRouterStores } from './memory-router-stores.js';

interface Running {
  readonly runtime: WorkerRuntime;
  readonly runner: MemoryJobRunner;
  readonly beat: NodeJS.Timeout | undefined;
  stopping: boolean;
  drain: Promise<void> | undefined;
}

/**
 * The embedded transport: events, drains and handler jobs in this process.
 * Same semantics as the Redis transport (drain limits, retries, dead letters), nothing
 * survives a restart. One drain runs at a time. Provides the same ports as
 * the Redis adapter.
 */
export class MemoryTransport implements EventPublisher, WorkerHost, WorkerOrderingSource, Closable {
  /** Scheduling rules and parked work; released work goes to {@link MemoryTransport.jobs}, as any handler job. */
  readonly rules = new MemorySchedulingRuleStore((jobs) => this.jobs.enqueue(jobs));
  /** The adapter's name, as `bus.status()` shows it. */
  readonly name = 'memory';
  /** What it holds lives in this process only. */
  readonly inProcess = true;
  /** Published events waiting for the drain. */
  readonly log: MemoryEventLog;
  /** Handler jobs: run by this transport's worker, kept until one starts. */
  readonly jobs: HandlerJobQueue = {
    enqueue: async (jobs) => {
      if (this.worker === undefined || this.worker.stopping) {
        this.parked.push(...jobs);
      } else {
        this.worker.runner.add(jobs);
      }
      this.notify();
    },
    hasUnfinished: async () => this.parked.length > 0 || !(this.worker?.runner.isIdle() ?? true),
    counts: async () =>
      countJobs([
        ...this.parked.map((job) => jobStateOf(job, 0, false)),
        ...(this.worker?.runner.states() ?? []),
      ]),
  };
  private worker: Running | undefined;
  private readonly idleWaiters = new Set<() => void>();
  /** Jobs added while no worker runs; the next worker takes them. */
  private readonly parked: HandlerJob[] = [];
  private drains = 0;
  /** Dead letters, kept in this process (shared by the workers this transport runs). */
  readonly deadLetters = new MemoryDeadLetterStore();
  /** Each schedule's last tick, in this process. */
  readonly ticks: ScheduleTickStore = new MemoryScheduleTickStore();
  /** Ordered events' lanes, in this process. */
  readonly ordering: MemoryOrderingStore;

  constructor(private readonly config: ResolvedCommitbusOptions) {
    this.ordering = new MemoryOrderingStore(() => this.notify(), laneGapWaitMs(config.outbox));
    this.log = new MemoryEventLog(
      config.publishing.dedupeWindowMs,
      () => this.notify(),
      (lane, payload, position) => this.ordering.append(lane, payload, position),
    );
  }

  workerOrdering(): WorkerOrdering {
    return { store: this.ordering, close: () => {} };
  }

  /** The router's stores in this process, lost when it stops (tests, the demo). */
  routerStores(shared: { readonly deadLetters?: DeadLetterStore }): RouterStores {
    return memoryRouterStores(shared);
  }

  async publish(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    this.ordering.checkNumbering(events);
    const result = await this.log.append(events);
    if (result.appended > 0) this.ensureDrain();
    return result;
  }

  async releaseDue(limit: number): Promise<number> {
    const moved = await this.log.releaseDue(limit);
    if (moved > 0) this.ensureDrain();
    return moved;
  }

  async startWorker(runtime: WorkerRuntime): Promise<TransportWorker> {
    if (this.worker !== undefined) {
      throw new MemoryWorkerStartedError();
    }
    const deps = {
      dispatcher: runtime.dispatcher,
      enqueue: async (jobs: HandlerJob[]) => running.runner.add(jobs),
      deadLetters: this.deadLetters,
    };
    const runner = new MemoryJobRunner(
      runtime.config.handlers.concurrency,
      (job, attemptsMade, save, retryIn) =>
        processHandlerJob(
          {
            kind: job.kind,
            data: job,
            attemptsMade,
            attempts: job.attempts,
            saveFailures: async (failures) => save({ ...job, failures }),
            retryIn,
          },
          deps,
        ),
      () => this.notify(),
      (job, error) =>
        runtime.logger.error(
          { jobId: job.jobId, handler: job.handler, error: describeError(error).message },
          'handler job failed on its last run and could not be kept as a dead letter; it is dropped',
        ),
    );
    const beat =
      runtime.config.drains.scheduleEveryMs > 0
        ? setInterval(() => this.ensureDrain(), runtime.config.drains.scheduleEveryMs)
        : undefined;
    const running: Running = { runtime, runner, beat, stopping: false, drain: undefined };
    this.worker = running;
    runner.add(this.parked.splice(0));
    this.ensureDrain();
    return { close: (timeoutMs) => this.stopWorker(running, timeoutMs) };
  }

  /** How many drains have started; observable in tests of respawning. */
  get drainsStarted(): number {
    return this.drains;
  }

  private ensureDrain(): void {
    const running = this.worker;
    if (running === undefined || running.stopping || running.drain !== undefined) return;
    this.drains++;
    const { runtime } = running;
    running.drain = runDrain({
      log: this.log,
      dispatcher: runtime.dispatcher,
      enqueue: async (jobs) => running.runner.add(jobs),
      deadLetters: this.deadLetters,
      limits: runtime.config.drains,
      consumer: `memory:${this.drains}`,
      stopping: () => running.stopping,
      solo: runtime.solo,
    }).then(
      (result) => {
        running.drain = undefined;
        runtime.onDrain?.(result);
        if (result.backlog > 0) this.ensureDrain();
        this.notify();
      },
      (error: unknown) => {
        running.drain = undefined;
        runtime.logger.error({ error: String(error) }, 'memory drain failed; restarting');
        this.ensureDrain();
      },
    );
  }

  private async stopWorker(running: Running, timeoutMs: number): Promise<void> {
    running.stopping = true;
    if (running.beat !== undefined) clearInterval(running.beat);
    this.log.wakeAll();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([running.drain, this.whenRunnerIdle(running.runner)]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    running.runner.close();
    if (this.worker === running) this.worker = undefined;
    this.notify();
  }

  private whenRunnerIdle(runner: MemoryJobRunner): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!runner.isIdle()) return;
        this.idleWaiters.delete(check);
        resolve();
      };
      this.idleWaiters.add(check);
      check();
    });
  }

  private notify(): void {
    for (const check of [...this.idleWaiters]) check();
  }

  async close(): Promise<void> {
    if (this.worker !== undefined) await this.stopWorker(this.worker, this.config.shutdownTimeoutMs);
  }
}
