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
}
