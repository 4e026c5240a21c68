import { backoffDelay } from '../../handlers/backoff.js';
import type { HandlerJob } from '../../handlers/handler-job.js';
import { NonRetryableError } from '../../handlers/non-retryable.error.js';
import { type FailedWork, toFailedWork } from '../failed-work.js';
import { describeError } from '../logger.js';

interface Ready {
  readonly job: HandlerJob;
  readonly attemptsMade: number;
}

/** Runs {@link HandlerJob}s in this process with BullMQ's semantics: ids, delays, attempts, backoff. */
export class MemoryJobRunner {
  /** Work that ran out of attempts. */
  readonly failed: FailedWork[] = [];
  private readonly live = new Set<string>();
  private readonly ready: Ready[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = 0;
  private closed = false;

  constructor(
    private readonly concurrency: number,
    private readonly process: (job: HandlerJob, attemptsMade: number) => Promise<void>,
    private readonly onChange: () => void,
  ) {}

  /** Adds jobs; a job whose id is already waiting or running is ignored, as in BullMQ. */
  add(jobs: readonly HandlerJob[]): void {
    for (const job of jobs) {
      if (this.live.has(job.jobId)) continue;
      this.live.add(job.jobId);
      this.schedule({ job, attemptsMade: 0 }, job.delayMs);
    }
  }

  /** No job waiting, delayed or running. */
  isIdle(): boolean {
    return this.live.size === 0;
  }

  /** Drops delayed and waiting jobs and lets running ones finish. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(item: Ready, delayMs: number): void {
    if (this.closed) return;
    if (delayMs <= 0) {
      this.ready.push(item);
      this.pump();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.ready.push(item);
      this.pump();
    }, delayMs);
    this.timers.add(timer);
  }

  private pump(): void {
    while (!this.closed && this.running < this.concurrency && this.ready.length > 0) {
      void this.run(this.ready.shift() as Ready);
    }
  }

  private async run({ job, attemptsMade }: Ready): Promise<void> {
    this.running++;
    try {
      await this.process(job, attemptsMade);
      this.live.delete(job.jobId);
    } catch (error) {
      const made = attemptsMade + 1;
      if (!(error instanceof NonRetryableError) && made < job.attempts && !this.closed) {
        this.schedule({ job, attemptsMade: made }, backoffDelay(job.backoff, made));
      } else {
        this.live.delete(job.jobId);
        const { message, stack } = describeError(error);
        this.failed.push(
          toFailedWork(job, {
            error: message,
            stacktrace: stack !== undefined ? [stack] : [],
            jobRuns: made,
            failedAt: new Date(),
          }),
        );
      }
    } finally {
      this.running--;
      this.pump();
      this.onChange();
    }
  }
}
