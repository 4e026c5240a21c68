import type { Cluster } from 'ioredis';
import type { BackoffOptions } from '../support/backoff.js';
import type { RedisClusterNode } from './redis-cluster-node.js';

/** Which transport carries events between publishers and workers. */
export type TransportKind = 'memory' | 'bullmq';

/**
 * Whether a bus's workers run ordered lanes: `auto` when a registered event
 * class has `orderBy`, `on` always (for `publish(e, { orderKey })` without
 * such a class), `off` never.
 */
export type OrderingMode = 'auto' | 'on' | 'off';

/**
 * Every option of commitbus, with its default. Pass a partial object to
 * `resolveConfig` (or to `createEventBus`) and the rest is filled in from
 * {@link DEFAULT_CONFIG}.
 */
export interface CommitbusConfig {
  /**
   * `memory` keeps events in this process (the embedded default: demos and unit
   * tests); `bullmq` keeps them in Redis and handles them on BullMQ workers.
   * @defaultValue `'memory'`
   */
  transport: TransportKind;
  /**
   * Redis connection URL for the `bullmq` transport.
   * @defaultValue `'redis://127.0.0.1:6379'`
   */
  redisUrl: string;
  /**
   * Runs the `bullmq` transport on a Redis Cluster instead of the single Redis
   * at `redisUrl`: a few of its nodes (the rest are discovered), or an ioredis
   * `Cluster` whose nodes and options commitbus copies for each connection it
   * opens (it does not use or close that instance itself). One bus keeps all
   * its keys in one hash slot, so on one master; see the README's "Redis Cluster".
   * @defaultValue `undefined` (a single Redis at `redisUrl`)
   */
  redisCluster?: readonly RedisClusterNode[] | Cluster;
  /**
   * Prefix of every Redis key commitbus and its BullMQ queues write: a bus's
   * keys all start with the hash tag `{<prefix>:<name>}`. Give each
   * application (and each test file) its own.
   * @defaultValue `'commitbus'`
   */
  prefix: string;
  /**
   * Name of this bus; queues and the event stream are named after it.
   * @defaultValue `'events'`
   */
  name: string;
  /**
   * How many events one `handle-events` drain job handles before it stops and,
   * if events are left, enqueues its successor.
   * @defaultValue `1000`
   */
  maxEvents: number;
  /**
   * How long one drain job lives, in milliseconds, before it stops (and
   * respawns if events are left).
   * @defaultValue `300_000` (5 minutes)
   */
  ttlMs: number;
  /**
   * How many events a drain reads from the stream in one round trip.
   * @defaultValue `100`
   */
  batchSize: number;
  /**
   * How long one blocking read of a drain waits for new events, in milliseconds.
   * Bounds how late a drain notices its TTL or a shutdown.
   * @defaultValue `1_000`
   */
  blockMs: number;
  /**
   * How many drain jobs may run at once across all worker processes.
   * @defaultValue `4`
   */
  maxConcurrentDrains: number;
  /**
   * Every this many milliseconds a job scheduler starts a drain, as a safety
   * net beside the drain started on each publish (the RFC's celery-beat).
   * `0` turns the schedule off.
   * @defaultValue `30_000`
   */
  scheduleEveryMs: number;
  /**
   * An event read by a drain that died is taken over by another drain once it
   * has been unacknowledged for this long, in milliseconds. Must exceed the
   * longest time your sync handlers take for one batch.
   * @defaultValue `60_000`
   */
  claimStaleAfterMs: number;
  /**
   * How many async handler jobs one worker process runs at once.
   * @defaultValue `20`
   */
  asyncConcurrency: number;
  /**
   * How many times a handler runs before its failure is kept for inspection,
   * unless the handler entry says otherwise. Counts the first run.
   * @defaultValue `3`
   */
  defaultAttempts: number;
  /**
   * How many times one piece of handler work (an event in a drain, a handler
   * job, an ordered event in its lane) may be handed to a worker that then
   * dies or stalls before finishing it. Work delivered more often is not run
   * again: each of its handlers becomes a dead letter with reason `crashed`
   * (an ordered key halts under `afterLastAttempt: 'halt'`), so one event
   * that kills its process (`process.exit`, out of memory, a native crash)
   * stops after this many crashes instead of crash-looping every worker.
   * Failed attempts that throw do not count: `attempts` limits those.
   * @defaultValue `5`
   */
  maxDeliveries: number;
  /**
   * Wait between handler attempts, unless the handler entry says otherwise.
   * Fields left out take their default; `jitter` randomizes that share of each
   * wait (see {@link BackoffOptions.jitter}).
   * @defaultValue `{ type: 'exponential', delayMs: 1_000, jitter: 0.5 }`
   */
  defaultBackoff: BackoffOptions;
  /**
   * Longest a handler run may take, in milliseconds, unless the handler entry
   * says otherwise (`timeoutMs`). A run still going then counts as a failed
   * attempt (`HandlerTimeoutError`) and its `ctx.signal` is aborted; a hung
   * sync handler holds its drain no longer than this. `0`: no limit.
   * @defaultValue `30_000`
   */
  handlerTimeoutMs: number;
  /**
   * How many times publishing after a commit is tried before it raises
   * `PublishAfterCommitError`.
   * @defaultValue `5`
   */
  publishAttempts: number;
  /**
   * First wait between publish attempts, in milliseconds; doubles each time.
   * @defaultValue `100`
   */
  publishBackoffMs: number;
  /**
   * How long a worker waits for in-flight work on shutdown, in milliseconds,
   * before it closes anyway (unfinished drains are redelivered).
   * @defaultValue `30_000`
   */
  shutdownTimeoutMs: number;
  /**
   * Keep events in a transactional outbox table when the bus has a
   * `dataSource`: each unit of work writes its events in its own transaction,
   * and a relay in every worker publishes what a crashed publisher left.
   * `false` publishes after commit without a safety net.
   * @defaultValue `true`
   */
  outbox: boolean;
  /**
   * Outbox rows older than this, in milliseconds, are taken to be left by a
   * publisher that died between commit and publish, and are republished by a
   * worker's relay. Must exceed the time a publish normally takes.
   * @defaultValue `5_000`
   */
  outboxGraceMs: number;
  /**
   * How often a worker's relay looks for left-behind outbox rows, in milliseconds.
   * @defaultValue `1_000`
   */
  outboxRelayEveryMs: number;
  /**
   * Most outbox rows a relay claims and publishes in one transaction.
   * @defaultValue `500`
   */
  outboxRelayBatchSize: number;
  /**
   * How long the transport remembers an event id it has accepted, in
   * milliseconds: the same id published again within this window (an outbox
   * row republished by the relay) is dropped. Costs one small Redis key per
   * event for the window.
   * @defaultValue `600_000` (10 minutes)
   */
  dedupeWindowMs: number;
  /**
   * Largest serialized event, in bytes. Bigger events are refused at
   * `register`/`publish` time with `EventTooLargeError`.
   * @defaultValue `262_144` (256 KiB)
   */
  maxEventBytes: number;
  /**
   * How often workers move delayed events that are due into the stream, in
   * milliseconds: a delayed event is handled no earlier than its time, and
   * usually within this much after it.
   * @defaultValue `250`
   */
  delayedPollMs: number;
  /**
   * How long idempotent handlers' completion records are kept, in
   * milliseconds; workers delete older ones. An event redelivered later than
   * this runs its idempotent handlers again.
   * @defaultValue `604_800_000` (7 days)
   */
  handledRetentionMs: number;
  /**
   * Lock of a running async handler or retry job, in milliseconds: renewed
   * while the job runs, lost when its worker dies, after which another worker
   * retries the job (BullMQ's `lockDuration`; stalled jobs are looked for as
   * often).
   * @defaultValue `30_000`
   *
   * Also the lease of a worker on the order keys it is handling: renewed every
   * `delayedPollMs`; when its worker dies, another worker resumes each key
   * at the event it stopped on once the lease lapses.
   */
  lockDurationMs: number;
  /**
   * How often each worker reloads the scheduling rules (pause, block) and
   * releases parked work of handlers no longer paused, in milliseconds. A rule
   * set from any process takes effect on every worker within this time.
   * @defaultValue `500`
   */
  rulesRefreshMs: number;
  /**
   * How many order keys one worker process handles at once (each key's
   * events one after the other). Ordered events of different keys run in
   * parallel across all workers.
   * @defaultValue `64`
   */
  orderedConcurrency: number;
  /**
   * Whether workers run ordered lanes (two more Redis connections per worker
   * and an upkeep call every `delayedPollMs`). `auto`: when a registered event
   * class has `orderBy`; `on`: always, for events ordered only by
   * `publish(e, { orderKey })`; `off`: never, and ordered events are refused.
   * A bus without lanes refuses `orderKey` with `OrderingDisabledError`
   * instead of stranding the event. Give every process of a bus the same value.
   * @defaultValue `'auto'`
   */
  ordering: OrderingMode;
}

/** The defaults, in one place. */
export const DEFAULT_CONFIG: Readonly<CommitbusConfig> = Object.freeze({
  transport: 'memory',
  redisUrl: 'redis://127.0.0.1:6379',
  prefix: 'commitbus',
  name: 'events',
  maxEvents: 1000,
  ttlMs: 300_000,
  batchSize: 100,
  blockMs: 1_000,
  maxConcurrentDrains: 4,
  scheduleEveryMs: 30_000,
  claimStaleAfterMs: 60_000,
  asyncConcurrency: 20,
  defaultAttempts: 3,
  maxDeliveries: 5,
  defaultBackoff: Object.freeze({ type: 'exponential', delayMs: 1_000, jitter: 0.5 }),
  handlerTimeoutMs: 30_000,
  publishAttempts: 5,
  publishBackoffMs: 100,
  shutdownTimeoutMs: 30_000,
  outbox: true,
  outboxGraceMs: 5_000,
  outboxRelayEveryMs: 1_000,
  outboxRelayBatchSize: 500,
  dedupeWindowMs: 600_000,
  maxEventBytes: 262_144,
  delayedPollMs: 250,
  handledRetentionMs: 604_800_000,
  lockDurationMs: 30_000,
  rulesRefreshMs: 500,
  orderedConcurrency: 64,
  ordering: 'auto',
} satisfies CommitbusConfig);
