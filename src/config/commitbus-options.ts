import type { Cluster } from 'ioredis';
import type { BackoffOptions } from '../support/retry-policy.js';
import type {
  AuditOptions,
  DeadLetterOptions,
  DrainOptions,
  HandlerRunOptions,
  HistoryOptions,
  IdempotencyOptions,
  OrderingMode,
  OrderingOptions,
  OutboxOptions,
  PublishingOptions,
  RedisOptions,
  SchedulingOptions,
  WorkersOptions,
} from './option-groups.js';
import type { RedisClusterNode } from './redis-cluster-node.js';

/**
 * Every option of commitbus, grouped by what it tunes, each filled in:
 * {@link DEFAULT_CONFIG} and what `loadConfigFromEnv` returns.
 */
export interface ResolvedCommitbusOptions {
  /**
   * Name of this bus; queues and the event stream are named after it.
   * @defaultValue `'events'`
   */
  name: string;
  /**
   * How long a worker waits for in-flight work on shutdown, in milliseconds,
   * before it closes anyway (unfinished work is redelivered).
   * @defaultValue `30_000`
   */
  shutdownTimeoutMs: number;
  /** Where Redis is and how keys are named. */
  redis: RedisOptions;
  /** The drains that read the event stream. */
  drains: DrainOptions;
  /** Handler runs. */
  handlers: HandlerRunOptions;
  /** Publishing. */
  publishing: PublishingOptions;
  /** The transactional outbox. */
  outbox: OutboxOptions;
  /** Ordered lanes. */
  ordering: OrderingOptions;
  /** Idempotent handlers' records. */
  idempotency: IdempotencyOptions;
  /** Scheduling rules. */
  scheduling: SchedulingOptions;
  /** Dead letters' retention. */
  deadLetters: DeadLetterOptions;
  /** Workers' beats and when one counts as gone. */
  workers: WorkersOptions;
  /** The history per minute. */
  history: HistoryOptions;
  /** The audit trail of operator actions. */
  audit: AuditOptions;
}

/** A group of options with every field optional. */
type PartialGroup<T> = { [K in keyof T]?: T[K] extends BackoffOptions ? Partial<T[K]> : T[K] };

/**
 * The flat option names commitbus had before options were grouped.
 * Each still works, with a warning logged once naming its new place; give
 * an option by one name only.
 */
export interface FlatCommitbusOptions {
  /** @deprecated use `redis.url` */
  redisUrl?: string;
  /** @deprecated use `redis.cluster` */
  redisCluster?: readonly RedisClusterNode[] | Cluster;
  /** @deprecated use `redis.prefix` */
  prefix?: string;
  /** @deprecated use `drains.maxEvents` */
  maxEvents?: number;
  /** @deprecated use `drains.ttlMs` */
  ttlMs?: number;
  /** @deprecated use `drains.batchSize` */
  batchSize?: number;
  /** @deprecated use `drains.blockMs` */
  blockMs?: number;
  /** @deprecated use `drains.maxConcurrent` */
  maxConcurrentDrains?: number;
  /** @deprecated use `drains.scheduleEveryMs` */
  scheduleEveryMs?: number;
  /** @deprecated use `drains.claimStaleAfterMs` */
  claimStaleAfterMs?: number;
  /** @deprecated use `handlers.concurrency` */
  asyncConcurrency?: number;
  /** @deprecated use `handlers.attempts` */
  defaultAttempts?: number;
  /** @deprecated use `handlers.backoff` */
  defaultBackoff?: Partial<BackoffOptions>;
  /** @deprecated use `handlers.timeoutMs` */
  handlerTimeoutMs?: number;
  /** @deprecated use `handlers.maxDeliveries` */
  maxDeliveries?: number;
  /**
   * @deprecated use `handlers.lockDurationMs`; it also still sets
   * `ordering.leaseMs` when that is not given.
   */
  lockDurationMs?: number;
  /** @deprecated use `publishing.attempts` */
  publishAttempts?: number;
  /** @deprecated use `publishing.backoffMs` */
  publishBackoffMs?: number;
  /** @deprecated use `publishing.maxEventBytes` */
  maxEventBytes?: number;
  /** @deprecated use `publishing.dedupeWindowMs` */
  dedupeWindowMs?: number;
  /**
   * @deprecated use `publishing.delayedPollMs`; it also still sets
   * `ordering.upkeepMs` when that is not given.
   */
  delayedPollMs?: number;
  /** @deprecated use `outbox.graceMs` */
  outboxGraceMs?: number;
  /** @deprecated use `outbox.relayEveryMs` */
  outboxRelayEveryMs?: number;
  /** @deprecated use `outbox.relayBatchSize` */
  outboxRelayBatchSize?: number;
  /** @deprecated use `ordering.concurrency` */
  orderedConcurrency?: number;
  /** @deprecated use `idempotency.retentionMs` */
  handledRetentionMs?: number;
  /** @deprecated use `scheduling.rulesRefreshMs` */
  rulesRefreshMs?: number;
}

/**
 * What `createEventBus({ config })`, `startRouter` and `loadConfigFromEnv`
 * take: any of the grouped options (the rest keep their default), or,
 * deprecated, the old flat names. `outbox: true | false` and
 * `ordering: 'auto' | 'on' | 'off'` are the old forms of `outbox.enabled`
 * and `ordering.mode`.
 */
export interface CommitbusOptions extends FlatCommitbusOptions {
  /** See {@link ResolvedCommitbusOptions.name}. @defaultValue `'events'` */
  name?: string;
  /** See {@link ResolvedCommitbusOptions.shutdownTimeoutMs}. @defaultValue `30_000` */
  shutdownTimeoutMs?: number;
  /** Where Redis is and how keys are named. */
  redis?: PartialGroup<RedisOptions>;
  /** The drains that read the event stream. */
  drains?: PartialGroup<DrainOptions>;
  /** Handler runs. */
  handlers?: PartialGroup<HandlerRunOptions>;
  /** Publishing. */
  publishing?: PartialGroup<PublishingOptions>;
  /** The transactional outbox; `true`/`false` is the deprecated form of `{ enabled }`. */
  outbox?: PartialGroup<OutboxOptions> | boolean;
  /** Ordered lanes; a mode alone is the deprecated form of `{ mode }`. */
  ordering?: PartialGroup<OrderingOptions> | OrderingMode;
  /** Idempotent handlers' records. */
  idempotency?: PartialGroup<IdempotencyOptions>;
  /** Scheduling rules. */
  scheduling?: PartialGroup<SchedulingOptions>;
  /** Dead letters' retention. */
  deadLetters?: PartialGroup<DeadLetterOptions>;
  /** Workers' beats and when one counts as gone. */
  workers?: PartialGroup<WorkersOptions>;
  /** The history per minute. */
  history?: PartialGroup<HistoryOptions>;
  /** The audit trail of operator actions. */
  audit?: PartialGroup<AuditOptions>;
}
