import type { BackoffOptions } from './backoff.js';

/** Work that leaves the drain: an async handler run or a retry of a sync chain. */
export interface HandlerJob {
  /** `async`: run one async handler. `retry`: rerun the sync chain from `handler`. */
  readonly kind: 'async' | 'retry';
  /** Stable id: the same event and handler always give the same id. */
  readonly jobId: string;
  /** The serialized event envelope. */
  readonly payload: string;
  /** The handler to run (or to restart the sync chain from). Absent when undecodable. */
  readonly handler?: string;
  /** Total runs this job may take. */
  readonly attempts: number;
  /** Wait between runs. */
  readonly backoff: BackoffOptions;
  /** Wait before the first run, in milliseconds. */
  readonly delayMs: number;
  /** Set when no run is left: the error to keep it failed with. */
  readonly exhaustedError?: string;
  /**
   * The handler's attempt number on this job's first run; set on parked work,
   * which keeps its count. See {@link firstAttemptOf} for the default.
   */
  readonly firstAttempt?: number;
}

/** The handler's attempt number on a job's first run: 1 for `async`, 2 for `retry` (the drain made run 1). */
export function firstAttemptOf(kind: HandlerJob['kind'], job: Pick<HandlerJob, 'firstAttempt'>): number {
  return job.firstAttempt ?? (kind === 'async' ? 1 : 2);
}
