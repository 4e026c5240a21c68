import { Queue } from 'bullmq';
import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import { deadLetterRetention } from '../../dead-letters/dropped-letters-log.js';
import type { EventPublisher } from '../../events/event-publisher.js';
import type { AppendResult, OutgoingEvent } from '../../events/outgoing-event.js';
import type { TransportWorker, WorkerRuntime } from '../../handlers/handler-worker.js';
import type { WorkerHost } from '../../handlers/worker-host.js';
import { OrderingPositionsMismatchError } from '../../ordering/errors/ordering-positions-mismatch.error.js';
import { laneGapWaitMs } from '../../ordering/lane-rebase.js';
import type { WorkerOrdering, WorkerOrderingSource } from '../../ordering/worker-ordering.js';
import type { RouterStores } from '../../router/router-stores.js';
import type { ScheduleTickStore } from '../../scheduling/schedule-tick-store.js';
import type { Closable } from '../../support/closable.js';
import { TransportUnavailableError } from '../../support/errors/transport-unavailable.error.js';
import type { Logger } from '../../support/logger.js';
import { redactSecrets, sanitizeError } from '../../support/sanitize-error.js';
import { DRAIN_JOB, DRAIN_JOB_OPTS, startBullmqWorker } from './bullmq-worker.js';
import { connectionWarnings } from './connection-warnings.js';
import { HandlerJobQueues } from './handler-job-queues.js';
import { type QueueNames, queueNamesOf } from './queue-names.js';
import { RedisDeadLetterStore } from './redis.dead-letter-store.js';
import { RedisHistoryStore } from './redis.history-store.js';
import { RedisOperatorActionLog } from './redis.operator-action-log.js';
import { RedisOrderingStore } from './redis.ordering-store.js';
import { RedisScheduleTickStore } from './redis.schedule-tick-store.js';
import { RedisSchedulingRuleStore } from './redis.scheduling-rule-store.js';
import { RedisWorkerRegistry } from './redis.worker-registry.js';
import type { RedisClient } from './redis-client.js';
import { RedisConnections } from './redis-connections.js';
import { describeRedisFailure } from './redis-failure.js';
import { isRedisOutage } from './redis-outage.js';
import { redisRouterStores } from './redis-router-stores.js';
import { RedisStreamEventLog } from './redis-stream.event-log.js';

const KICK_ID = 'kick';
const BEAT_ID = 'beat';

/**
 * Events on Redis: published into a stream with one script call, drained by
 * BullMQ `handle-events` jobs (started on publish, by a job scheduler, and by
 * their predecessors), async handlers and retries as BullMQ jobs. Runs on a
 * single Redis or a Redis Cluster: every key of the bus, BullMQ's included,
 * is under one hash tag (see {@link QueueNames}). Provides every port a bus
 * wires: publisher, work source (`log`), worker host, handler jobs, the three
 * stores and workers' lane handles.
 */
export class BullmqTransport implements EventPublisher, WorkerHost, WorkerOrderingSource, Closable {
  /** The adapter's name, as `bus.status()` shows it. */
  readonly name = 'redis';
  /** The Redis names this transport uses. */
  readonly names: QueueNames;
  /** Scheduling rules and parked work, in Redis. */
  readonly rules: RedisSchedulingRuleStore;
  /** Dead letters in Redis, under the bus's prefix. */
  readonly deadLetters: RedisDeadLetterStore;
  /** Ordered events' lanes in Redis, under the bus's prefix. */
  readonly ordering: RedisOrderingStore;
  /** Each schedule's last tick, in a hash under the bus's prefix. */
  readonly ticks: ScheduleTickStore;
  /** The bus's workers and their beats, in a hash under the bus's prefix. */
  readonly workers: RedisWorkerRegistry;
  /** The bus's history per minute, in a hash under the bus's prefix. */
  readonly history: RedisHistoryStore;
  /** The bus's audit trail of operator actions, in a stream under the bus's prefix. */
  readonly audit: RedisOperatorActionLog;
  /** The stream published events wait in for a drain. */
  readonly log: RedisStreamEventLog;
  /** Async handler jobs and retries, in BullMQ queues. */
  readonly jobs: HandlerJobQueues;
  private readonly connections: RedisConnections;
  private readonly redis: RedisClient;
  private readonly drainQueue: Queue;
  private readonly onConnectionError: (error: Error) => void;
  private kicking: Promise<void> | undefined;
  private kickAgain = false;
  /** How long a sync lane waits for a missing position (`laneGapWaitMs`). */
  private readonly gapWaitMs: number;

  constructor(
    private readonly config: ResolvedCommitbusOptions,
    private readonly logger: Logger,
  ) {
    this.names = queueNamesOf(config);
    this.gapWaitMs = laneGapWaitMs(config.outbox);
    this.onConnectionError = connectionWarnings(logger, () => this.connections.describe());
    this.connections = new RedisConnections(config.redis, this.onConnectionError);
    // Publishing fails fast while Redis is away, so the unit of work's retries see it.
    this.redis = this.connections.open(2);
    this.log = new RedisStreamEventLog(this.redis, this.names, config.publishing.dedupeWindowMs);
    this.drainQueue = new Queue(this.names.drain, {
      connection: this.redis,
      prefix: this.names.bullmqPrefix,
    });
    this.drainQueue.on('error', this.onConnectionError);
    this.jobs = new HandlerJobQueues(
      this.redis,
      this.names,
      this.names.bullmqPrefix,
      this.onConnectionError,
      (action, error) => this.unavailable(action, error),
    );
    this.rules = new RedisSchedulingRuleStore(
      this.redis,
      this.names,
      (jobs) => this.jobs.enqueue(jobs),
      (action, error) => this.unavailable(action, error),
    );
    this.deadLetters = new RedisDeadLetterStore(
      this.redis,
      this.names,
      (action, error) => this.unavailable(action, error),
      deadLetterRetention(config.deadLetters, logger),
    );
    this.ordering = new RedisOrderingStore(this.redis, this.names.ordering, this.redis, this.gapWaitMs);
    this.ticks = new RedisScheduleTickStore(this.redis, this.names, (action, error) =>
      this.unavailable(action, error),
    );
    this.workers = new RedisWorkerRegistry(this.redis, this.names, (action, error) =>
      this.unavailable(action, error),
    );
    this.history = new RedisHistoryStore(this.redis, this.names, (action, error) =>
      this.unavailable(action, error),
    );
    this.audit = new RedisOperatorActionLog(
      this.redis,
      this.names,
      config.audit.maxEntries,
      (action, error) => this.unavailable(action, error),
    );
  }

  /** Where the keys are: the Redis (or Cluster) and the key prefix, never a password. */
  location(): string {
    return `${this.connections.describe()}, prefix ${this.config.redis.prefix}`;
  }

  /**
   * The bus's BullMQ queues: drain jobs, async handler jobs, sync-chain
   * retries (for a queue UI such as bull-board; `commitbus/dashboard` mounts
   * them). Closed with the transport.
   */
  get bullmqQueues(): readonly Queue[] {
    return [this.drainQueue, this.jobs.async, this.jobs.retry];
  }

  /** The router's stores under the bus's hash tag, on a connection of their own (see `redisRouterStores`). */
  routerStores(shared: { readonly deadLetters?: DeadLetterStore }): RouterStores {
    return redisRouterStores(this.config, this.logger, shared);
  }

  workerOrdering(): WorkerOrdering {
    // Both connections wait out Redis outages, as the worker's others do.
    const client = this.connections.open(null);
    const blocking = this.connections.open(null);
    return {
      store: new RedisOrderingStore(client, this.names.ordering, blocking, this.gapWaitMs),
      close: () => {
        blocking.disconnect();
        client.disconnect();
      },
    };
  }

  /**
   * Resolves once the bus's connection answers a `PING`; while Redis cannot be
   * reached it rejects soon with a {@link TransportUnavailableError} naming the
   * server. Call it before BullMQ's own calls on {@link bullmqQueues}, which
   * wait for Redis without end.
   */
  async reachable(action: string): Promise<void> {
    try {
      await this.redis.ping();
    } catch (error) {
      throw this.unavailable(action, error);
    }
  }

  /** An outage's error as a {@link TransportUnavailableError} naming the server; others as they are. */
  failure(action: string, error: unknown): unknown {
    return isRedisOutage(error) ? this.unavailable(action, error) : error;
  }

  private unavailable(action: string, error: unknown): TransportUnavailableError {
    const { connections } = this;
    // The cause first (ECONNREFUSED, WRONGPASS), not ioredis's "Reached the max retries per request limit".
    const failure = describeRedisFailure(error, connections.lastError(this.redis), connections);
    return new TransportUnavailableError(action, connections.describe(), {
      // A copy without what ioredis keeps on its errors (a failed AUTH's password among them).
      cause: sanitizeError(failure.root, connections.secrets),
      reason: redactSecrets(failure.reason, connections.secrets),
      fix: failure.fix,
    });
  }

  async publish(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    let result: AppendResult;
    try {
      await this.log.ensureGroup();
      result = await this.log.append(events);
    } catch (error) {
      // A refused publish is the bus's misconfiguration, not an outage.
      if (error instanceof OrderingPositionsMismatchError) throw error;
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
      await this.drainQueue.setGlobalConcurrency(config.drains.maxConcurrent);
      if (config.drains.scheduleEveryMs > 0) {
        await this.drainQueue.upsertJobScheduler(
          BEAT_ID,
          { every: config.drains.scheduleEveryMs },
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
      connection: this.connections.open(null),
      drainQueue: this.drainQueue,
      enqueue: (jobs) => this.jobs.enqueue(jobs),
      onConnectionError: this.onConnectionError,
    });
  }

  async close(): Promise<void> {
    await this.kicking;
    await Promise.all([this.drainQueue.close(), this.jobs.close()]);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
