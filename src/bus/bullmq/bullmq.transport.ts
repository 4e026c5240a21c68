import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { CommitbusConfig } from '../../config/config.js';
import type { HandlerJob } from '../../handlers/handler-job.js';
import { TransportUnavailableError } from '../errors/transport-unavailable.error.js';
import type { Logger } from '../logger.js';
import type { AppendResult, OutgoingEvent } from '../outgoing-event.js';
import type { Transport, TransportWorker, WorkerOrdering, WorkerRuntime } from '../transport.js';
import { DRAIN_JOB, DRAIN_JOB_OPTS, startBullmqWorker } from './bullmq-worker.js';
import { connectionWarnings, redactUrl } from './connection-warnings.js';
import { HandlerJobQueues } from './handler-job-queues.js';
import { type QueueNames, queueNames } from './queue-names.js';
import { RedisDeadLetterStore } from './redis.dead-letter-store.js';
import { RedisOrderingStore } from './redis.ordering-store.js';
import { RedisSchedulingRuleStore } from './redis.scheduling-rule-store.js';
import { RedisStreamEventLog } from './redis-stream.event-log.js';

const KICK_ID = 'kick';
const BEAT_ID = 'beat';

/**
 * Events on Redis: published into a stream with one script call, drained by
 * BullMQ `handle-events` jobs (started on publish, by a job scheduler, and by
 * their predecessors), async handlers and retries as BullMQ jobs.
 */
export class BullmqTransport implements Transport {
  readonly kind = 'bullmq' as const;
  /** The Redis names this transport uses. */
  readonly names: QueueNames;
  /** Scheduling rules and parked work, in Redis. */
  readonly rules: RedisSchedulingRuleStore;
  /** Dead letters in Redis, under the bus's prefix. */
  readonly deadLetters: RedisDeadLetterStore;
  /** Ordered events' lanes in Redis, under the bus's prefix. */
  readonly ordering: RedisOrderingStore;
  private readonly redis: Redis;
  private readonly log: RedisStreamEventLog;
  private readonly drainQueue: Queue;
  private readonly handlerJobs: HandlerJobQueues;
  private readonly onConnectionError: (error: Error) => void;
  private kicking: Promise<void> | undefined;
  private kickAgain = false;

  constructor(
    private readonly config: CommitbusConfig,
    private readonly logger: Logger,
  ) {
    this.names = queueNames(config);
    this.onConnectionError = connectionWarnings(logger, config.redisUrl);
    // Publishing fails fast while Redis is away, so the unit of work's retries see it.
    this.redis = this.connect(2);
    this.log = new RedisStreamEventLog(this.redis, this.names, config.dedupeWindowMs);
    this.drainQueue = new Queue(this.names.drain, { connection: this.redis, prefix: config.prefix });
    this.drainQueue.on('error', this.onConnectionError);
    this.handlerJobs = new HandlerJobQueues(this.redis, this.names, config.prefix, this.onConnectionError);
    this.rules = new RedisSchedulingRuleStore(
      this.redis,
      this.names,
      (jobs) => this.handlerJobs.enqueue(jobs),
      (action, error) => this.unavailable(action, error),
    );
    this.deadLetters = new RedisDeadLetterStore(this.redis, this.names);
    this.ordering = new RedisOrderingStore(this.redis, this.names.ordering);
  }

  workerOrdering(): WorkerOrdering {
    // Both connections wait out Redis outages, as the worker's others do.
    const client = this.connect(null);
    const blocking = this.connect(null);
    return {
      store: new RedisOrderingStore(client, this.names.ordering, blocking),
      close: () => {
        blocking.disconnect();
        client.disconnect();
      },
    };
  }

  private connect(maxRetriesPerRequest: number | null): Redis {
    const redis = new Redis(this.config.redisUrl, { maxRetriesPerRequest });
    redis.on('error', this.onConnectionError);
    return redis;
  }

  private unavailable(action: string, error: unknown): TransportUnavailableError {
    return new TransportUnavailableError(action, `Redis at ${redactUrl(this.config.redisUrl)}`, {
      cause: error,
    });
  }

  async publish(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    let result: AppendResult;
    try {
      await this.log.ensureGroup();
      result = await this.log.append(events);
    } catch (error) {
      throw this.unavailable(`publish ${events.length} event(s)`, error);
    }
    // Ordered events wait in their lanes, which workers take from without a drain.
    if (result.appended > 0 && events.some((e) => e.lane === undefined)) this.kick();
    return result;
  }

  async releaseDue(limit: number): Promise<number> {
    let moved: number;
    try {
      await this.log.ensureGroup();
      moved = await this.log.releaseDue(limit);
    } catch (error) {
      throw this.unavailable('release delayed events', error);
    }
    if (moved > 0) this.kick();
    return moved;
  }

  delayed(): Promise<number> {
    return this.log.delayed();
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
      .add(DRAIN_JOB, {}, { ...DRAIN_JOB_OPTS, deduplication: { id: KICK_ID, keepLastIfActive: true } })
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
    const { config } = runtime;
    try {
      await this.log.ensureGroup();
      await this.drainQueue.setGlobalConcurrency(config.maxConcurrentDrains);
      if (config.scheduleEveryMs > 0) {
        await this.drainQueue.upsertJobScheduler(
          BEAT_ID,
          { every: config.scheduleEveryMs },
          { name: DRAIN_JOB, opts: DRAIN_JOB_OPTS },
        );
      }
    } catch (error) {
      throw this.unavailable('start a worker', error);
    }
    return startBullmqWorker({
      runtime,
      names: this.names,
      // Workers wait out Redis outages instead of failing (BullMQ requires this).
      connection: this.connect(null),
      drainQueue: this.drainQueue,
      enqueue: (jobs) => this.handlerJobs.enqueue(jobs),
      onConnectionError: this.onConnectionError,
    });
  }

  enqueue(jobs: readonly HandlerJob[]): Promise<void> {
    return this.handlerJobs.enqueue(jobs);
  }

  async backlog(): Promise<number> {
    const [stream, ordered] = await Promise.all([this.log.backlog(), this.ordering.pending()]);
    return stream + ordered;
  }

  async isIdle(): Promise<boolean> {
    // Stream first: a drain enqueues an event's jobs before it acknowledges
    // the event, so an empty stream means every job is already counted below.
    if ((await this.log.backlog()) > 0 || (await this.log.delayed()) > 0) return false;
    // Lanes fan out to async lanes in the same step that finishes an event, so this count is whole.
    const ordered = await this.ordering.pending();
    if (ordered > 0 && ordered > (await this.ordering.pendingInHalted())) return false;
    return !(await this.handlerJobs.hasUnfinished());
  }

  async close(): Promise<void> {
    await this.kicking;
    await Promise.all([this.drainQueue.close(), this.handlerJobs.close()]);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
