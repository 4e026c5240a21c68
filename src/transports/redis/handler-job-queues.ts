import { type JobType, Queue } from 'bullmq';
import type { HandlerJob } from '../../handlers/handler-job.js';
import {
  countJobs,
  type HandlerJobCounts,
  type JobState,
  jobStateOf,
} from '../../handlers/handler-job-counts.js';
import type { HandlerJobQueue } from '../../handlers/handler-job-queue.js';
import type { HandlerJobData } from '../../handlers/process-handler-job.js';
import { bullmqBackoff } from './bullmq-backoff.js';
import { bullmqJobId } from './bullmq-job-id.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { isRedisOutage } from './redis-outage.js';

const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;
// Jobs read per call while counting: bounds each reply, however many jobs wait.
const COUNT_PAGE = 1_000;

/**
 * The two BullMQ queues of handler work: `<name>-async` (one job per async
 * handler and event, and re-driven dead letters) and `<name>-retry` (sync
 * chains to run again). Work given up goes to the dead-letter store and its
 * job completes; a failed set fills only if the store could not be written.
 * Job ids are mapped to ones BullMQ accepts (`bullmqJobId`).
 */
export class HandlerJobQueues implements HandlerJobQueue {
  /** Async handler jobs. */
  readonly async: Queue;
  /** Sync-chain retries. */
  readonly retry: Queue;

  /**
   * @param unavailable - the error to throw when Redis cannot take the jobs
   *   now (a `TransportUnavailableError`), from what ioredis threw.
   */
  constructor(
    connection: RedisClient,
    names: QueueNames,
    prefix: string,
    onError: (error: Error) => void,
    private readonly unavailable: (action: string, error: unknown) => Error,
  ) {
    this.async = new Queue(names.async, { connection, prefix });
    this.retry = new Queue(names.retry, { connection, prefix });
    this.async.on('error', onError);
    this.retry.on('error', onError);
  }

  /**
   * Adds jobs; each queue's share in one round trip, both at once. Rejects
   * with the `unavailable` error when Redis cannot be reached or take commands
   * now; with what BullMQ or Redis said when they refuse the jobs themselves.
   */
  async enqueue(jobs: readonly HandlerJob[]): Promise<void> {
    const toBulk = (kind: HandlerJob['kind']) =>
      jobs
        .filter((j) => j.kind === kind)
        .map((j) => ({
          name: j.handler,
          data: {
            payload: j.payload,
            handler: j.handler,
            ...(j.firstAttempt !== undefined ? { firstAttempt: j.firstAttempt } : {}),
            ...(j.failures !== undefined ? { failures: j.failures } : {}),
          } satisfies HandlerJobData,
          opts: {
            jobId: bullmqJobId(j.jobId),
            attempts: j.attempts,
            // Timed by commitbus (the workers' commitbusBackoffStrategy), as on every other path.
            backoff: bullmqBackoff(j.backoff),
            delay: j.delayMs,
            removeOnComplete: true,
            removeOnFail: false,
          },
        }));
    const asyncJobs = toBulk('async');
    const retryJobs = toBulk('retry');
    try {
      await Promise.all([
        asyncJobs.length > 0 ? this.async.addBulk(asyncJobs) : undefined,
        retryJobs.length > 0 ? this.retry.addBulk(retryJobs) : undefined,
      ]);
    } catch (error) {
      throw isRedisOutage(error) ? this.unavailable(`enqueue ${jobs.length} handler job(s)`, error) : error;
    }
  }

  /** Whether any job is waiting, delayed or running. */
  async hasUnfinished(): Promise<boolean> {
    for (const queue of [this.async, this.retry]) {
      const counts = await queue.getJobCounts(...UNFINISHED);
      if (Object.values(counts).some((n) => n > 0)) return true;
    }
    return false;
  }

  /** Reads every unfinished job of both queues, a page at a time, and counts them by state and handler. */
  async counts(): Promise<HandlerJobCounts> {
    const states: JobState[] = [];
    for (const queue of [this.async, this.retry]) {
      for (const type of UNFINISHED) {
        for await (const job of jobsOf(queue, type)) {
          const data = job.data as Partial<HandlerJobData>;
          const kind = queue === this.retry ? 'retry' : 'async';
          const handler = data.handler ?? job.name;
          states.push(
            jobStateOf(
              { kind, handler, firstAttempt: data.firstAttempt },
              job.attemptsMade,
              type === 'active',
            ),
          );
        }
      }
    }
    return countJobs(states);
  }

  /** Closes both queues (the shared connection stays open). */
  async close(): Promise<void> {
    await Promise.all([this.async.close(), this.retry.close()]);
  }
}

async function* jobsOf(queue: Queue, type: JobType) {
  for (let start = 0; ; start += COUNT_PAGE) {
    const page = await queue.getJobs([type], start, start + COUNT_PAGE - 1, true);
    yield* page.filter((job) => job !== undefined && job !== null);
    if (page.length < COUNT_PAGE) return;
  }
}
