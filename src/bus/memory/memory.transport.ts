import type { CommitbusConfig } from '../../config/config.js';
import { runDrain } from '../../handlers/drain.js';
import type { HandlerJob } from '../../handlers/handler-job.js';
import { processHandlerJob } from '../../handlers/process-handler-job.js';
import { describeError } from '../logger.js';
import type { AppendResult, OutgoingEvent } from '../outgoing-event.js';
import type { Transport, TransportWorker, WorkerOrdering, WorkerRuntime } from '../transport.js';
import { MemoryDeadLetterStore } from './memory.dead-letter-store.js';
import { MemoryEventLog } from './memory.event-log.js';
import { MemoryOrderingStore } from './memory.ordering-store.js';
import { MemorySchedulingRuleStore } from './memory.scheduling-rule-store.js';
import { MemoryJobRunner } from './memory-job-runner.js';

interface Running {
  readonly runtime: WorkerRuntime;
  readonly runner: MemoryJobRunner;
  readonly beat: NodeJS.Timeout | undefined;
  stopping: boolean;
  drain: Promise<void> | undefined;
}

/**
 * The embedded transport: events, drains and handler jobs in this process.
 * Same semantics as `bullmq` (drain limits, retries, dead letters), nothing
 * survives a restart. One drain runs at a time.
 */
export class MemoryTransport implements Transport {
  readonly kind = 'memory' as const;
  /** Scheduling rules and parked work; released work goes to this transport's worker. */
  readonly rules = new MemorySchedulingRuleStore((jobs) => {
    if (this.worker === undefined || this.worker.stopping) return false;
    this.worker.runner.add(jobs);
    return true;
  });
  private readonly log: MemoryEventLog;
  private worker: Running | undefined;
  private readonly idleWaiters = new Set<() => void>();
  /** Jobs added while no worker runs; the next worker takes them. */
  private readonly parked: HandlerJob[] = [];
  private drains = 0;
  /** Dead letters, kept in this process (shared by the workers this transport runs). */
  readonly deadLetters = new MemoryDeadLetterStore();
  /** Ordered events' lanes, in this process. */
  readonly ordering = new MemoryOrderingStore(() => this.notify());

  constructor(private readonly config: CommitbusConfig) {
    this.log = new MemoryEventLog(
      config.dedupeWindowMs,
      () => this.notify(),
      (lane, payload, position) => this.ordering.append(lane, payload, position),
    );
  }

  workerOrdering(): WorkerOrdering {
    return { store: this.ordering, close: () => {} };
  }

  async publish(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    const result = await this.log.append(events);
    if (result.appended > 0) this.ensureDrain();
    return result;
  }

  async releaseDue(limit: number): Promise<number> {
    const moved = await this.log.releaseDue(limit);
    if (moved > 0) this.ensureDrain();
    return moved;
  }

  delayed(): Promise<number> {
    return this.log.delayed();
  }

  async startWorker(runtime: WorkerRuntime): Promise<TransportWorker> {
    if (this.worker !== undefined) {
      throw new Error('a memory bus runs one worker; call startWorker() once per bus');
    }
    const deps = {
      dispatcher: runtime.dispatcher,
      enqueue: async (jobs: HandlerJob[]) => running.runner.add(jobs),
      deadLetters: this.deadLetters,
    };
    const runner = new MemoryJobRunner(
      runtime.config.asyncConcurrency,
      (job, attemptsMade, save) =>
        processHandlerJob(
          {
            kind: job.kind,
            data: job,
            attemptsMade,
            attempts: job.attempts,
            saveFailures: async (failures) => save({ ...job, failures }),
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
      runtime.config.scheduleEveryMs > 0
        ? setInterval(() => this.ensureDrain(), runtime.config.scheduleEveryMs)
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
      limits: runtime.config,
      consumer: `memory:${this.drains}`,
      stopping: () => running.stopping,
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

  /**
   * Resolves once every published event has been drained and every handler
   * job (with its retries) has finished. Needs a started worker.
   */
  whenIdle(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        void this.isIdle().then((idle) => {
          if (!idle || !this.idleWaiters.delete(check)) return;
          resolve();
        });
      };
      this.idleWaiters.add(check);
      check();
    });
  }

  private notify(): void {
    for (const check of [...this.idleWaiters]) check();
  }

  async enqueue(jobs: readonly HandlerJob[]): Promise<void> {
    if (this.worker === undefined || this.worker.stopping) {
      this.parked.push(...jobs);
    } else {
      this.worker.runner.add(jobs);
    }
    this.notify();
  }

  async backlog(): Promise<number> {
    return (await this.log.backlog()) + (await this.ordering.pending());
  }

  async isIdle(): Promise<boolean> {
    return (
      (await this.log.backlog()) === 0 &&
      (await this.log.delayed()) === 0 &&
      this.parked.length === 0 &&
      (await this.ordering.pending()) === (await this.ordering.pendingInHalted()) &&
      (this.worker?.runner.isIdle() ?? true)
    );
  }

  async close(): Promise<void> {
    if (this.worker !== undefined) await this.stopWorker(this.worker, this.config.shutdownTimeoutMs);
  }
}
