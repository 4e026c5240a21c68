import { type HandlerJob, jobRetryDelay } from '../../handlers/handler-job.js';
import { type JobState, jobStateOf } from '../../handlers/handler-job-counts.js';

interface Ready {
  readonly job: HandlerJob;
  readonly attemptsMade: number;
}

/**
 * Runs one job; `save` replaces the job (its data) before the job is run
 * again, `retryIn` sets the wait before that run (else {@link jobRetryDelay}).
 */
export type MemoryJobProcessor = (
  job: HandlerJob,
  attemptsMade: number,
  save: (job: HandlerJob) => void,
  retryIn: (delayMs: number) => void,
) => Promise<void>;

/**
 * Runs {@link HandlerJob}s in this process with BullMQ's semantics: ids,
 * delays, attempts; each retry waits what commitbus's retry policy says.
 */
export class MemoryJobRunner {
  /** Jobs waiting, delayed or running, by id. */
  private readonly live = new Map<string, JobState>();
  private readonly ready: Ready[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = 0;
  private closed = false;

  /**
   * @param process - runs a job; throws to have it run again after its backoff.
   * @param onGiveUp - a job that threw on its last run (its processor could not keep it).
   */
  constructor(
    private readonly concurrency: number,
    private readonly process: MemoryJobProcessor,
    private readonly onChange: () => void,
    private readonly onGiveUp: (job: HandlerJob, error: unknown) => void,
  ) {}

  /** Adds jobs; a job whose id is already waiting or running is ignored, as in BullMQ. */
  add(jobs: readonly HandlerJob[]): void {
    for (const job of jobs) {
      if (this.live.has(job.jobId)) continue;
      this.live.set(job.jobId, jobStateOf(job, 0, false));
      this.schedule({ job, attemptsMade: 0 }, job.delayMs);
    }
  }

  /** No job waiting, delayed or running. */
  isIdle(): boolean {
    return this.live.size === 0;
  }

  /** Every job waiting, delayed or running. */
  states(): Iterable<JobState> {
    return this.live.values();
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
    this.live.set(job.jobId, jobStateOf(job, attemptsMade, true));
    let current = job;
    let decided: number | undefined;
    try {
      await this.process(
        job,
        attemptsMade,
        (saved) => {
          current = saved;
        },
        (delayMs) => {
          decided = delayMs;
        },
      );
      this.live.delete(job.jobId);
    } catch (error) {
      const made = attemptsMade + 1;
      if (made < job.attempts && !this.closed) {
        this.live.set(job.jobId, jobStateOf(job, made, false));
        this.schedule({ job: current, attemptsMade: made }, decided ?? jobRetryDelay(job, made));
      } else {
        this.live.delete(job.jobId);
        if (made >= job.attempts) this.onGiveUp(current, error);
      }
    } finally {
      this.running--;
      this.pump();
      this.onChange();
    }
  }
}
