import type { HandlerJob } from '../../handlers/handler-job.js';
import { jobRetryDelay } from '../../handlers/handler-job.js';
import type { DeadLetterSink } from '../../handlers/observed-dead-letters.js';
import type { HandlerJobDeps } from '../../handlers/process-handler-job.js';
import { processHandlerJob } from '../../handlers/process-handler-job.js';
import { TransportUnavailableError } from '../../support/errors/transport-unavailable.error.js';
import { describeError, type Logger } from '../../support/logger.js';
import { SqlLeaseLostError } from './errors/sql-lease-lost.error.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** A job a worker claimed: the job as stored, its earlier runs, how often it was handed out, its lease. */
export interface ClaimedJob {
  /** The job, with the failures its earlier runs saved. */
  readonly job: HandlerJob;
  /** Runs made before this one. */
  readonly attemptsMade: number;
  /** Hand-outs of this run, this one included: more than 1 after its worker died or stalled. */
  readonly deliveries: number;
  /** The claim's lease token: what the runner writes of the job lands only while it holds the lease. */
  readonly lease: string;
}

/** What the runner needs of the jobs table (`SqlHandlerJobQueue`); each write is a no-op once `lease` is superseded. */
export interface SqlJobSource {
  /** Claims up to `max` due jobs for `worker` under a lease of `leaseMs`. */
  claim(worker: string, max: number, leaseMs: number): Promise<ClaimedJob[]>;
  /** Removes a finished job; resolves to false when the claim no longer held it. */
  complete(jobId: string, lease: string): Promise<boolean>;
  /** Lets go of a job to run again `delayMs` from now (the database's clock), with `attemptsMade` runs and `job` as it now is. */
  retryAfter(
    jobId: string,
    delayMs: number,
    attemptsMade: number,
    job: HandlerJob,
    lease: string,
  ): Promise<boolean>;
  /** Renews the leases of the running claims. */
  extend(claims: readonly { jobId: string; lease: string }[], leaseMs: number): Promise<unknown>;
}

/** How the runner runs. */
export interface SqlJobRunnerOptions {
  readonly worker: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly wakeups: SqlWakeups;
  readonly logger: Logger;
  /** Runs one job's handler; a gate around it (the process's solo gate) goes here. */
  readonly run: (claimed: ClaimedJob, work: () => Promise<void>) => Promise<void>;
  /**
   * Where a run of `claimed` keeps its dead letters: written only while the
   * claim holds the job's lease (else it throws), so a superseded run cannot
   * give up a job another worker runs.
   */
  readonly deadLetters: (claimed: ClaimedJob) => DeadLetterSink;
}

/**
 * Runs handler jobs from the jobs table in this process: claims due jobs
 * under a lease as slots free up, renews the lease while they run, removes
 * a job that finished, and lets a failed one go to run again after the
 * wait the pipeline decided (else `jobRetryDelay`). A job that fails on its
 * last run is given up by the pipeline (a dead letter) and removed.
 */
export class SqlJobRunner {
  private readonly running = new Map<
    string,
    { readonly jobId: string; readonly lease: string; readonly done: Promise<void> }
  >();
  private stopping = false;
  private loop: Promise<void> | undefined;
  private renew: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: SqlJobSource,
    private readonly deps: HandlerJobDeps,
    private readonly options: SqlJobRunnerOptions,
  ) {}

  /** Starts claiming. */
  start(): void {
    this.loop = this.claimLoop();
    this.renew = setInterval(
      () => void this.extendLeases(),
      Math.max(10, Math.floor(this.options.leaseMs / 3)),
    );
  }

  /** Stops claiming and waits up to `timeoutMs` for running jobs; those still running are left to their lease. */
  async close(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.options.wakeups.interrupt();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.running.values()].map((r) => r.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (this.renew !== undefined) clearInterval(this.renew);
  }

  /** Whether a job runs in this process now. */
  isBusy(): boolean {
    return this.running.size > 0;
  }

  private async claimLoop(): Promise<void> {
    const { worker, concurrency, leaseMs, pollMs, wakeups, logger } = this.options;
    while (!this.stopping) {
      const free = concurrency - this.running.size;
      let claimed: ClaimedJob[] = [];
      if (free > 0) {
        try {
          claimed = await this.source.claim(worker, free, leaseMs);
        } catch (error) {
          logger.warn({ error: describeError(error).message }, 'could not claim handler jobs; trying again');
        }
      }
      for (const item of claimed) {
        const key = `${item.job.jobId}\u0000${item.lease}`;
        const done = this.runOne(item).finally(() => {
          this.running.delete(key);
          wakeups.local('jobs');
        });
        this.running.set(key, { jobId: item.job.jobId, lease: item.lease, done });
      }
      if (claimed.length === 0 || claimed.length === free) await wakeups.wait('jobs', pollMs);
    }
  }

  private async runOne(claimed: ClaimedJob): Promise<void> {
    const { lease } = claimed;
    const deps = { ...this.deps, deadLetters: this.options.deadLetters(claimed) };
    let current = claimed.job;
    let decided: number | undefined;
    try {
      await this.options.run(claimed, () =>
        processHandlerJob(
          {
            kind: current.kind,
            data: current,
            attemptsMade: claimed.attemptsMade,
            attempts: current.attempts,
            deliveries: claimed.deliveries,
            saveFailures: async (failures) => {
              current = { ...current, failures };
            },
            retryIn: (delayMs) => {
              decided = delayMs;
            },
          },
          deps,
        ),
      );
      if (!(await this.source.complete(current.jobId, lease))) this.superseded(current);
    } catch (error) {
      await this.failed(claimed, current, decided, error);
    }
  }

  /**
   * A run of `claimed` threw (`job` as it now is, `decided` the pipeline's
   * wait): runs it again after that wait, counting the run; on its last
   * run, removes it (its dead letter is kept). A last run that met the
   * database out of reach (its dead letter could not be written) is never
   * dropped: it runs again, uncounted, as a drain keeps such an event.
   */
  private async failed(
    claimed: ClaimedJob,
    job: HandlerJob,
    decided: number | undefined,
    error: unknown,
  ): Promise<void> {
    const { logger } = this.options;
    const { lease } = claimed;
    const made = claimed.attemptsMade + 1;
    if (error instanceof SqlLeaseLostError) {
      this.superseded(job);
    } else if (made < job.attempts || error instanceof TransportUnavailableError) {
      const counted = made < job.attempts ? made : claimed.attemptsMade;
      const wait = decided ?? jobRetryDelay(job, made);
      const kept = await this.source.retryAfter(job.jobId, wait, counted, job, lease).catch((e: unknown) => {
        logger.warn(
          { jobId: job.jobId, error: describeError(e).message },
          'could not schedule a handler job again; its lease will hand it out',
        );
        return false;
      });
      // This process looks again when the retry comes due, not at its next poll (others poll).
      if (kept && wait > 0) this.wakeWhenDue(wait);
    } else {
      logger.error(
        { jobId: job.jobId, handler: job.handler, error: describeError(error).message },
        'handler job failed on its last run and could not be kept as a dead letter; it is dropped',
      );
      await this.source.complete(job.jobId, lease).catch(() => {});
    }
  }

  /** Wakes the claim loop once `ms` have passed (a timer that keeps no process alive). */
  private wakeWhenDue(ms: number): void {
    if (ms >= this.options.pollMs) return;
    setTimeout(() => this.options.wakeups.local('jobs'), ms + 1).unref();
  }

  /** The run's lease was claimed by another worker (this one stalled past it): the job is theirs now. */
  private superseded(job: HandlerJob): void {
    this.options.logger.warn(
      { jobId: job.jobId, handler: job.handler },
      'handler job ran past its lease and another worker claimed it; this run leaves the job to that worker',
    );
  }

  private async extendLeases(): Promise<void> {
    if (this.running.size === 0) return;
    const claims = [...this.running.values()].map(({ jobId, lease }) => ({ jobId, lease }));
    try {
      await this.source.extend(claims, this.options.leaseMs);
    } catch (error) {
      this.options.logger.warn(
        { error: describeError(error).message },
        'could not renew the lease of running handler jobs',
      );
    }
  }
}
