import type { HandlerJob } from '../../handlers/handler-job.js';
import { jobRetryDelay } from '../../handlers/handler-job.js';
import type { HandlerJobDeps } from '../../handlers/process-handler-job.js';
import { processHandlerJob } from '../../handlers/process-handler-job.js';
import { describeError, type Logger } from '../../support/logger.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** A job a worker claimed: the job as stored, its earlier runs, and how often it was handed out. */
export interface ClaimedJob {
  /** The job, with the failures its earlier runs saved. */
  readonly job: HandlerJob;
  /** Runs made before this one. */
  readonly attemptsMade: number;
  /**
   * Hand-outs of this run, this one included: more than 1 after its worker
   * died or stalled. The jobs table does not count them yet: absent, 1.
   */
  readonly deliveries?: number;
}

/** What the runner needs of the jobs table (`SqlHandlerJobQueue`). */
export interface SqlJobSource {
  /** Claims up to `max` due jobs for `worker` under a lease of `leaseMs`. */
  claim(worker: string, max: number, leaseMs: number): Promise<ClaimedJob[]>;
  /** Removes a finished job. */
  complete(jobId: string): Promise<unknown>;
  /** Lets go of a job to run again at `runAt` (epoch ms), with `attemptsMade` runs and `job` as it now is. */
  retryAt(jobId: string, runAt: number, attemptsMade: number, job: HandlerJob): Promise<unknown>;
  /** Renews `worker`'s lease on its running jobs. */
  extend(worker: string, jobIds: readonly string[], leaseMs: number): Promise<unknown>;
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
}

/**
 * Runs handler jobs from the jobs table in this process: claims due jobs
 * under a lease as slots free up, renews the lease while they run, removes
 * a job that finished, and lets a failed one go to run again after the
 * wait the pipeline decided (else `jobRetryDelay`). A job that fails on its
 * last run is given up by the pipeline (a dead letter) and removed.
 */
export class SqlJobRunner {
  private readonly running = new Map<string, Promise<void>>();
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
      Promise.all(this.running.values()),
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
        const done = this.runOne(item).finally(() => {
          this.running.delete(item.job.jobId);
          wakeups.local('jobs');
        });
        this.running.set(item.job.jobId, done);
      }
      if (claimed.length === 0 || claimed.length === free) await wakeups.wait('jobs', pollMs);
    }
  }

  private async runOne(claimed: ClaimedJob): Promise<void> {
    const { logger } = this.options;
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
            deliveries: claimed.deliveries ?? 1,
            saveFailures: async (failures) => {
              current = { ...current, failures };
            },
            retryIn: (delayMs) => {
              decided = delayMs;
            },
          },
          this.deps,
        ),
      );
      await this.source.complete(current.jobId);
    } catch (error) {
      const made = claimed.attemptsMade + 1;
      if (made < current.attempts) {
        const wait = decided ?? jobRetryDelay(current, made);
        await this.source.retryAt(current.jobId, Date.now() + wait, made, current).catch((e: unknown) => {
          logger.warn(
            { jobId: current.jobId, error: describeError(e).message },
            'could not schedule a handler job again; its lease will hand it out',
          );
        });
      } else {
        logger.error(
          { jobId: current.jobId, handler: current.handler, error: describeError(error).message },
          'handler job failed on its last run and could not be kept as a dead letter; it is dropped',
        );
        await this.source.complete(current.jobId).catch(() => {});
      }
    }
  }

  private async extendLeases(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      await this.source.extend(this.options.worker, [...this.running.keys()], this.options.leaseMs);
    } catch (error) {
      this.options.logger.warn(
        { error: describeError(error).message },
        'could not renew the lease of running handler jobs',
      );
    }
  }
}
