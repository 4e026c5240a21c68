import type { HandlerJob } from './handler-job.js';
import type { HandlerJobCounts } from './handler-job-counts.js';

/**
 * The port of handler jobs: async handler runs, sync-chain retries and
 * re-driven dead letters wait here until a worker (of any process) runs them.
 */
export interface HandlerJobQueue {
  /** Adds jobs in one round trip. */
  enqueue(jobs: readonly HandlerJob[]): Promise<void>;
  /** Whether any job is waiting, delayed or running. */
  hasUnfinished(): Promise<boolean>;
  /** Jobs not finished, by state and by handler (reads every job: for status pages, not hot paths). */
  counts(): Promise<HandlerJobCounts>;
}
