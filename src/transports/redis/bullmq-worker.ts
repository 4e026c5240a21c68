import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Job, type Queue, Worker } from 'bullmq';
import { deadLetterRetention } from '../../dead-letters/dropped-letters-log.js';
import { runDrain } from '../../handlers/drain.js';
import type { HandlerJob } from '../../handlers/handler-job.js';
import type { TransportWorker, WorkerRuntime } from '../../handlers/handler-worker.js';
import { type HandlerJobData, processHandlerJob } from '../../handlers/process-handler-job.js';
import { commitbusBackoffStrategy } from './bullmq-backoff.js';
import type { QueueNames } from './queue-names.js';
import { RedisDeadLetterStore } from './redis.dead-letter-store.js';
import type { RedisClient } from './redis-client.js';
import { RedisStreamEventLog } from './redis-stream.event-log.js';

/** The name of drain jobs in the drain queue. */
export const DRAIN_JOB = 'handle-events';

/** Options of drain jobs added by commitbus (kicks, successors, the scheduler). */
export const DRAIN_JOB_OPTS = { removeOnComplete: 100, removeOnFail: 100 } as const;

/** What {@link startBullmqWorker} needs from the transport. */
export interface BullmqWorkerDeps {
  /** The bus's runtime: dispatcher, config, logger. */
  readonly runtime: WorkerRuntime;
  /** Redis names. */
  readonly names: QueueNames;
  /** A connection that waits out outages (`maxRetriesPerRequest: null`); the worker owns it. */
  readonly connection: RedisClient;
  /** The drain queue, to enqueue successors. */
  readonly drainQueue: Queue;
  /** Adds handler jobs. */
  readonly enqueue: (jobs: HandlerJob[]) => Promise<void>;
  /** `error` listener for connections and workers. */
  readonly onConnectionError: (error: Error) => void;
}

/**
 * Runs the three BullMQ workers of a process: drains (`handle-events` jobs,
 * each reading the stream on a connection of its own), async handler jobs and
 * sync-chain retries.
 */
export async function startBullmqWorker(deps: BullmqWorkerDeps): Promise<TransportWorker> {
  const { runtime, names, connection, drainQueue, enqueue, onConnectionError } = deps;
  const { config, dispatcher, logger } = runtime;
  let stopping = false;
  const drainLog = new RedisStreamEventLog(connection, names, config.publishing.dedupeWindowMs);
  // On the worker's connection, which waits out outages: work given up is not dropped.
  const deadLetters = new RedisDeadLetterStore(
    connection,
    names,
    undefined,
    deadLetterRetention(config.deadLetters, logger),
  );
  const drainConnections = new Set<RedisClient>();
  const workerOpts = { connection, prefix: names.bullmqPrefix };

  const drainWorker = new Worker(
    names.drain,
    async (job: Job) => {
      const blocking = connection.duplicate();
      blocking.on('error', onConnectionError);
      drainConnections.add(blocking);
      try {
        const result = await runDrain({
          log: drainLog.withBlockingClient(blocking),
          dispatcher,
          enqueue,
          deadLetters,
          limits: config.drains,
          consumer: `${hostname()}:${process.pid}:${job.id}`,
          stopping: () => stopping,
          solo: runtime.solo,
        });
        if (result.backlog > 0) await drainQueue.add(DRAIN_JOB, {}, DRAIN_JOB_OPTS);
        runtime.onDrain?.(result);
        return result;
      } finally {
        drainConnections.delete(blocking);
        blocking.disconnect();
      }
    },
    // A drain that died is simply started again: its events wait in the stream.
    {
      ...workerOpts,
      concurrency: config.drains.maxConcurrent,
      maxStalledCount: 1_000,
      // A dead worker's drain stops counting against drains.maxConcurrent once its lock expires.
      lockDuration: config.handlers.lockDurationMs,
      stalledInterval: config.handlers.lockDurationMs,
    },
  );
  // The wait each failed handler job's run decided, read by the workers' backoff strategy.
  const retryWaits = new WeakMap<object, number>();
  const handlerProcessor = (kind: HandlerJob['kind']) => (job: Job<HandlerJobData>) => {
    // Each stall is a delivery whose worker died or lost its lock before finishing.
    const deliveries = job.stalledCounter + 1;
    const run = () =>
      processHandlerJob(
        {
          kind,
          data: job.data,
          attemptsMade: job.attemptsMade,
          attempts: job.opts.attempts ?? 1,
          deliveries,
          // The attempt history travels in the job's data, to the next run and into the dead letter.
          saveFailures: (failures) => job.updateData({ ...job.data, failures: [...failures] }),
          retryIn: (delayMs) => retryWaits.set(job, delayMs),
        },
        { dispatcher, enqueue, deadLetters },
      );
    // A job handed out again runs alone in the process, as a taken-over stream entry does.
    return deliveries > 1 ? runtime.solo.alone(run) : runtime.solo.shared(run);
  };
  const handlerOpts = {
    ...workerOpts,
    concurrency: config.handlers.concurrency,
    lockDuration: config.handlers.lockDurationMs,
    stalledInterval: config.handlers.lockDurationMs,
    // A job whose worker died is run again however often that happens: stalls
    // are not failures of the handler, and BullMQ's default (1) would fail the
    // job for good, losing the handler's run for its event.
    maxStalledCount: 1_000,
    // Retries are timed by commitbus's retry policy, not by BullMQ's built-in backoffs.
    settings: { backoffStrategy: commitbusBackoffStrategy(retryWaits) },
  };
  const workers = [
    drainWorker,
    new Worker(names.async, handlerProcessor('async'), handlerOpts),
    new Worker(names.retry, handlerProcessor('retry'), handlerOpts),
  ];
  for (const worker of workers) {
    worker.on('error', onConnectionError);
    worker.on('failed', (job, error) => {
      if (job?.name === DRAIN_JOB) {
        logger.error(
          { jobId: job.id, error: error.message },
          'drain failed; its unacknowledged events are taken over by another drain after claimStaleAfterMs',
        );
      } else if (job !== undefined && job.finishedOn !== undefined) {
        logger.error(
          { jobId: job.id, handler: (job.data as HandlerJobData).handler, error: error.message },
          'handler job failed on its last run and could not be kept as a dead letter; it stays in the BullMQ failed set',
        );
      }
    });
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  logger.info({ queue: names.drain }, 'commitbus worker started');

  return {
    close: async (timeoutMs) => {
      stopping = true;
      const graceful = Promise.all(workers.map((w) => w.close()));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const outcome = await Promise.race([graceful, timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        // BullMQ's close(true) only joins a close already under way, so cut
        // the connections instead: unfinished jobs stall and are picked up
        // again, unacknowledged events are claimed by another drain.
        logger.warn({ timeoutMs }, 'in-flight work did not finish in time; it will be redelivered');
        for (const blocking of drainConnections) blocking.disconnect();
        connection.disconnect();
        await Promise.race([Promise.allSettled(workers.map((w) => w.disconnect())), sleep(1_000)]);
        return;
      }
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}
