import type { AttemptFailureJson } from '../dead-letters/attempt-failure.js';
import { type BackoffOptions, retryDelay } from '../support/retry-policy.js';

/** Work that leaves the drain: one handler run, or a retry of a sync chain. */
export interface HandlerJob {
  /**
   * `async`: run one handler (an async handler, or any handler re-driven from
   * a dead letter). `retry`: rerun a sync chain from `handler` on.
   */
  readonly kind: 'async' | 'retry';
  /** Stable id: the same event and handler always give the same id. */
  readonly jobId: string;
  /** The serialized event envelope. */
  readonly payload: string;
  /** The handler to run (or to restart the sync chain from). */
  readonly handler: string;
  /** Total runs this job may make. */
  readonly attempts: number;
  /** Wait between runs. */
  readonly backoff: BackoffOptions;
  /** Wait before the first run, in milliseconds. */
  readonly delayMs: number;
  /** The handler's attempt number of this job's first run (a sync retry starts at 2). @defaultValue 1 */
  readonly firstAttempt?: number;
  /** Failed attempts so far, first to last; each failed run of the job appends one. */
  readonly failures?: readonly AttemptFailureJson[];
}

/**
 * The wait before a job's next run when its run threw without the pipeline
 * deciding one (a store failed): the handler's backoff at the attempt that
 * failed, as the pipeline would have said. A transport times every retry of a
 * job with this or with the wait the run told it, never with a backoff of its own.
 * @param runsMade - the job's runs so far, the one that failed included.
 */
export function jobRetryDelay(job: Pick<HandlerJob, 'backoff' | 'firstAttempt'>, runsMade: number): number {
  return retryDelay(job.backoff, (job.firstAttempt ?? 1) - 1 + runsMade);
}
