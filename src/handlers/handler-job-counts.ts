import type { HandlerJob } from './handler-job.js';

/** Handler jobs of one handler (or of all) by state. */
export interface JobCounts {
  /** Waiting for their first run (due now or delayed). */
  readonly waiting: number;
  /** Running on a worker now. */
  readonly running: number;
  /** Waiting to run again after a failed attempt (a sync chain's retry, or an async job's backoff). */
  readonly retrying: number;
}

/** What {@link HandlerJobQueue.counts} reads: totals, and the same per handler. */
export interface HandlerJobCounts extends JobCounts {
  /** Per handler name; a handler with no job is absent. */
  readonly byHandler: Readonly<Record<string, JobCounts>>;
}

/** A job's state, as {@link countJobs} takes it. */
export interface JobState {
  /** The handler the job runs (or restarts a sync chain from). */
  readonly handler: string;
  /** Whether a worker runs it now. */
  readonly running: boolean;
  /** Whether it is a rerun after a failed attempt. */
  readonly retry: boolean;
}

/** A job's state from what it is: a retry is a sync chain's rerun, or any run after a failed attempt. */
export function jobStateOf(
  job: Pick<HandlerJob, 'kind' | 'handler' | 'firstAttempt'>,
  attemptsMade: number,
  running: boolean,
): JobState {
  return {
    handler: job.handler,
    running,
    retry: job.kind === 'retry' || attemptsMade > 0 || (job.firstAttempt ?? 1) > 1,
  };
}

/** Adds up job states into {@link HandlerJobCounts}; the adapters read states, this counts them. */
export function countJobs(jobs: Iterable<JobState>): HandlerJobCounts {
  const byHandler: Record<string, { waiting: number; running: number; retrying: number }> = {};
  const total = { waiting: 0, running: 0, retrying: 0 };
  for (const job of jobs) {
    const field = job.running ? 'running' : job.retry ? 'retrying' : 'waiting';
    const counts = byHandler[job.handler] ?? { waiting: 0, running: 0, retrying: 0 };
    counts[field]++;
    byHandler[job.handler] = counts;
    total[field]++;
  }
  return { ...total, byHandler };
}
