import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { CommitbusConfig } from '../../config/config.js';
import { runDrain } from '../../handlers/drain.js';
import type { HandlerJob } from '../../handlers/handler-job.js';
import { NonRetryableError } from '../../handlers/non-retryable.error.js';
import { type HandlerJobData, processHandlerJob } from '../../handlers/process-handler-job.js';
import { TransportUnavailableError } from '../errors/transport-unavailable.error.js';
import { type FailedWork, handlerRuns, peekEnvelope } from '../failed-work.js';
import type { Logger } from '../logger.js';
import type { Transport, TransportWorker, WorkerRuntime } from '../transport.js';
import { type QueueNames, queueNames } from './queue-names.js';
import { RedisStreamEventLog } from './redis-stream.event-log.js';

const DRAIN_JOB = 'handle-events';
const KICK_ID = 'kick';
const BEAT_ID = 'beat';
const CONNECTION_WARN_EVERY_MS = 10_000;

/** The URL without its password, for logs and errors. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/**
 * Events on Redis: published into a stream in one MULTI, drained by BullMQ
 * `handle-events` jobs (started on publish, by a job scheduler, and by their
 * predecessors), async handlers and retries as BullMQ jobs.
 */
export class BullmqTransport implements Transport {
  readonly kind = 'bullmq' as const;
  /** The Redis names this transport uses. */
  readonly names: QueueNames;
  private readonly redis: Redis;
  private readonly log: RedisStreamEventLog;
  private readonly drainQueue: Queue;
  private readonly asyncQueue: Queue;
  private readonly retryQueue: Queue;
  private kicking: Promise<void> | undefined;
  private kickAgain = false;

  constructor(
    private readonly config: CommitbusConfig,
    private readonly logger: Logger,
  ) {
    this.names = queueNames(config);
    // Publishing fails fast while Redis is away, so the unit of work's retries see it.
    this.redis = this.connect({ maxRetriesPerRequest: 2 });
    this.log = new RedisStreamEventLog(this.redis, this.names.stream, this.names.group);
    const opts = { connection: this.redis, prefix: config.prefix };
    this.drainQueue = new Queue(this.names.drain, opts);
    this.asyncQueue = new Queue(this.names.async, opts);
    this.retryQueue = new Queue(this.names.retry, opts);
    for (const queue of [this.drainQueue, this.asyncQueue, this.retryQueue]) {
      queue.on('error', this.warnConnectionError);
    }
  }

  private connect(options: { maxRetriesPerRequest: number | null }): Redis {
    const redis = new Redis(this.config.redisUrl, options);
    redis.on('error', this.warnConnectionError);
    return redis;
  }

  // ioredis and BullMQ report every failed reconnect: log the first of a run
  // of errors, then at most one every CONNECTION_WARN_EVERY_MS.
  private lastConnectionWarn = 0;
  private readonly warnConnectionError = (error: Error): void => {
    const now = Date.now();
    if (now - this.lastConnectionWarn < CONNECTION_WARN_EVERY_MS) return;
    this.lastConnectionWarn = now;
    this.logger.warn(
      { error: error.message, redis: redactUrl(this.config.redisUrl) },
      'redis connection error; reconnecting',
    );
  };

  async publish(payloads: readonly string[]): Promise<void> {
    try {
      await this.log.ensureGroup();
      await this.log.append(payloads);
    } catch (error) {
      throw new TransportUnavailableError(
        `publish ${payloads.length} event(s)`,
        `Redis at ${redactUrl(this.config.redisUrl)}`,
        { cause: error },
      );
    }
    this.kick();
  }

  /**
   * Makes sure a drain will run after this point. Kicks are coalesced: while
   * one is in flight, later publishes only ask for one more after it.
   */
  private kick(): void {
    if (this.kicking !== undefined) {
      this.kickAgain = true;
      return;
    }
    this.kicking = this.drainQueue
      .add(
        DRAIN_JOB,
        {},
        {
          deduplication: { id: KICK_ID, keepLastIfActive: true },
          removeOnComplete: 100,
          removeOnFail: 100,
        },
      )
      .then(
        () => undefined,
        (error: Error) =>
          this.logger.warn({ error: error.message }, 'could not start a drain; the scheduler will'),
      )
      .finally(() => {
        this.kicking = undefined;
        if (this.kickAgain) {
          this.kickAgain = false;
          this.kick();
        }
      });
  }

  async startWorker(runtime: WorkerRuntime): Promise<TransportWorker> {
    const { config, dispatcher, logger } = runtime;
    try {
      await this.log.ensureGroup();
      await this.drainQueue.setGlobalConcurrency(config.maxConcurrentDrains);
      if (config.scheduleEveryMs > 0) {
        await this.drainQueue.upsertJobScheduler(
          BEAT_ID,
          { every: config.scheduleEveryMs },
          { name: DRAIN_JOB, opts: { removeOnComplete: 100, removeOnFail: 100 } },
        );
      }
    } catch (error) {
      throw new TransportUnavailableError('start a worker', `Redis at ${redactUrl(config.redisUrl)}`, {
        cause: error,
      });
    }
    let stopping = false;
    const enqueue = (jobs: HandlerJob[]) => this.enqueue(jobs);
    // Workers wait out Redis outages instead of failing (BullMQ requires this).
    const connection = this.connect({ maxRetriesPerRequest: null });
    const drainLog = new RedisStreamEventLog(connection, this.names.stream, this.names.group);
    const drainConnections = new Set<Redis>();
    const workerOpts = { connection, prefix: config.prefix };
    const drainWorker = new Worker(
      this.names.drain,
      async (job: Job) => {
        const blocking = connection.duplicate();
        blocking.on('error', this.warnConnectionError);
        drainConnections.add(blocking);
        try {
          const result = await runDrain({
            log: drainLog.withBlockingClient(blocking),
            dispatcher,
            enqueue,
            limits: config,
            consumer: `${hostname()}:${process.pid}:${job.id}`,
            stopping: () => stopping,
          });
          if (result.backlog > 0) {
            await this.drainQueue.add(DRAIN_JOB, {}, { removeOnComplete: 100, removeOnFail: 100 });
          }
          runtime.onDrain?.(result);
          return result;
        } finally {
          drainConnections.delete(blocking);
          blocking.disconnect();
        }
      },
      // A drain that died is simply started again: its events wait in the stream.
      { ...workerOpts, concurrency: config.maxConcurrentDrains, maxStalledCount: 1_000 },
    );
    const handlerProcessor = (kind: HandlerJob['kind']) => async (job: Job<HandlerJobData>) => {
      try {
        await processHandlerJob(kind, job.data, job.attemptsMade, dispatcher, enqueue);
      } catch (error) {
        if (error instanceof NonRetryableError) throw new UnrecoverableError(error.message);
        throw error;
      }
    };
    const handlerOpts = { ...workerOpts, concurrency: config.asyncConcurrency };
    const asyncWorker = new Worker(this.names.async, handlerProcessor('async'), handlerOpts);
    const retryWorker = new Worker(this.names.retry, handlerProcessor('retry'), handlerOpts);
    const workers = [drainWorker, asyncWorker, retryWorker];
    for (const worker of workers) {
      worker.on('error', this.warnConnectionError);
      worker.on('failed', (job, error) => {
        if (job?.name === DRAIN_JOB) {
          logger.error(
            { jobId: job.id, error: error.message },
            'drain failed; its unacknowledged events are taken over by another drain after claimStaleAfterMs',
          );
        } else if (job !== undefined && job.finishedOn !== undefined) {
          logger.error(
            { jobId: job.id, handler: (job.data as HandlerJobData).handler, error: error.message },
            'handler work kept as failed after its last attempt',
          );
        }
      });
    }
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    logger.info({ queue: this.names.drain }, 'commitbus worker started');
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

  /** Adds async handler jobs and retry jobs, each kind in one round trip. */
  private async enqueue(jobs: HandlerJob[]): Promise<void> {
    const toBulk = (kind: HandlerJob['kind']) =>
      jobs
        .filter((j) => j.kind === kind)
        .map((j) => ({
          name: j.handler ?? 'undecodable',
          data: {
            payload: j.payload,
            handler: j.handler,
            exhaustedError: j.exhaustedError,
          } satisfies HandlerJobData,
          opts: {
            jobId: j.jobId,
            attempts: j.attempts,
            backoff: { type: j.backoff.type, delay: j.backoff.delayMs },
            delay: j.delayMs,
            removeOnComplete: true,
            removeOnFail: false,
          },
        }));
    const asyncJobs = toBulk('async');
    const retryJobs = toBulk('retry');
    await Promise.all([
      asyncJobs.length > 0 ? this.asyncQueue.addBulk(asyncJobs) : undefined,
      retryJobs.length > 0 ? this.retryQueue.addBulk(retryJobs) : undefined,
    ]);
  }

  async failures(): Promise<FailedWork[]> {
    const [asyncFailed, retryFailed] = await Promise.all([
      this.asyncQueue.getFailed(),
      this.retryQueue.getFailed(),
    ]);
    const toFailed =
      (kind: 'async' | 'retry') =>
      (job: Job<HandlerJobData>): FailedWork => ({
        kind: kind === 'async' ? 'async' : job.data.handler === undefined ? 'undecodable' : 'sync',
        jobId: String(job.id),
        ...peekEnvelope(job.data.payload),
        ...(job.data.handler !== undefined ? { handler: job.data.handler } : {}),
        error: job.failedReason,
        stacktrace: job.stacktrace ?? [],
        attemptsMade: handlerRuns(kind, job.data, job.attemptsMade),
        failedAt: new Date(job.finishedOn ?? job.timestamp),
        payload: job.data.payload,
      });
    return [...asyncFailed.map(toFailed('async')), ...retryFailed.map(toFailed('retry'))].sort(
      (a, b) => a.failedAt.getTime() - b.failedAt.getTime(),
    );
  }

  backlog(): Promise<number> {
    return this.log.backlog();
  }

  async isIdle(): Promise<boolean> {
    // Stream first: a drain enqueues an event's jobs before it acknowledges
    // the event, so an empty stream means every job is already counted below.
    if ((await this.log.backlog()) > 0) return false;
    const states = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;
    for (const queue of [this.asyncQueue, this.retryQueue]) {
      const counts = await queue.getJobCounts(...states);
      if (Object.values(counts).some((n) => n > 0)) return false;
    }
    return true;
  }

  async close(): Promise<void> {
    await this.kicking;
    await Promise.all([this.drainQueue.close(), this.asyncQueue.close(), this.retryQueue.close()]);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
