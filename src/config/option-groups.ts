import type { Cluster } from 'ioredis';
import type { BackoffOptions } from '../support/retry-policy.js';
import type { RedisClusterNode } from './redis-cluster-node.js';

/**
 * Whether a bus's workers run ordered lanes: `auto` when a registered event
 * class has `orderBy`, `on` always (for `publish(e, { orderKey })` without
 * such a class), `off` never.
 */
export type OrderingMode = 'auto' | 'on' | 'off';

/** Where `redisTransport()` (and the router) find Redis, and how they name their keys. */
export interface RedisOptions {
  /**
   * Redis connection URL. A user name or password holding `/`, `@`, `:`,
   * `%`, `#` or `?` must be percent-encoded.
   * @defaultValue `'redis://127.0.0.1:6379'`
   */
  url: string;
  /**
   * Runs on a Redis Cluster instead of the single Redis at `url`: a few of
   * its nodes (the rest are discovered), or an ioredis `Cluster` whose nodes
   * and options commitbus copies for each connection it opens (it does not
   * use or close that instance itself). One bus keeps all its keys in one
   * hash slot, so on one master; see the README's "Redis Cluster".
   * @defaultValue `undefined` (a single Redis at `url`)
   */
  cluster: readonly RedisClusterNode[] | Cluster | undefined;
  /**
   * Prefix of every Redis key commitbus and its BullMQ queues write: a bus's
   * keys all start with the hash tag `{<prefix>:<name>}`. Give each
   * application (and each test file) its own.
   * @defaultValue `'commitbus'`
   */
  prefix: string;
}

/** The drains: jobs that read the event stream and run sync handlers. */
export interface DrainOptions {
  /**
   * How many events one drain job handles before it stops and, if events are
   * left, enqueues its successor.
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
   * How long one blocking read of a drain waits for new events, in
   * milliseconds. Bounds how late a drain notices its TTL or a shutdown.
   * @defaultValue `1_000`
   */
  blockMs: number;
  /**
   * How many drain jobs may run at once across all worker processes, on the
   * Redis transport. The SQL transport (and so the embedded default) does
   * not read it: each of its workers runs `sqlTransport({ drains })` drains.
   * @defaultValue `4`
   */
  maxConcurrent: number;
  /**
   * Every this many milliseconds a job scheduler starts a drain, as a safety
   * net beside the drain started on each publish. `0` turns it off.
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
}

/** Handler runs: attempts, waits, limits and the lock of a handler job. */
export interface HandlerRunOptions {
  /**
   * How many async handler jobs one worker process runs at once.
   * @defaultValue `20`
   */
  concurrency: number;
  /**
   * How many times a handler runs before its failure is kept for inspection,
   * unless the handler entry says otherwise. Counts the first run.
   * @defaultValue `3`
   */
  attempts: number;
  /**
   * Wait between handler attempts, unless the handler entry says otherwise.
   * Fields left out take their default; `jitter` randomizes that share of
   * each wait.
   * @defaultValue `{ type: 'exponential', delayMs: 1_000, jitter: 0.5 }`
   */
  backoff: BackoffOptions;
  /**
   * Longest a handler run may take, in milliseconds, unless the handler
   * entry says otherwise. A run still going then counts as a failed attempt
   * (`HandlerTimeoutError`) and its `ctx.signal` is aborted. `0`: no limit.
   * @defaultValue `30_000`
   */
  timeoutMs: number;
  /**
   * How many times one piece of handler work (an event in a drain, a handler
   * job, an ordered event in its lane) may be handed to a worker that then
   * dies or stalls before finishing it. Work delivered more often is not run
   * again: each of its handlers becomes a dead letter with reason `crashed`.
   * Failed attempts that throw do not count: `attempts` limits those.
   * @defaultValue `5`
   */
  maxDeliveries: number;
  /**
   * Lock of a running async handler or retry job, in milliseconds: renewed
   * while the job runs, lost when its worker dies, after which another worker
   * retries the job (BullMQ's `lockDuration`; stalled jobs are looked for as
   * often).
   * @defaultValue `30_000`
   */
  lockDurationMs: number;
}

/** Publishing: retries after a commit, size limits, duplicates and delayed events. */
export interface PublishingOptions {
  /**
   * How many times publishing after a commit is tried before it raises
   * `PublishAfterCommitError`.
   * @defaultValue `5`
   */
  attempts: number;
  /**
   * First wait between publish attempts, in milliseconds; doubles each time.
   * @defaultValue `100`
   */
  backoffMs: number;
  /**
   * Largest serialized event, in bytes. Bigger events are refused at
   * `register`/`publish` time with `EventTooLargeError`.
   * @defaultValue `262_144` (256 KiB)
   */
  maxEventBytes: number;
  /**
   * How long the transport remembers an event id it has accepted, in
   * milliseconds: the same id published again within this window (an outbox
   * row republished by the relay) is dropped.
   * @defaultValue `600_000` (10 minutes)
   */
  dedupeWindowMs: number;
  /**
   * How often workers move delayed events that are due into the stream, in
   * milliseconds: a delayed event is handled no earlier than its time, and
   * usually within this much after it.
   * @defaultValue `250`
   */
  delayedPollMs: number;
}

/** The transactional outbox (used when the bus has a `dataSource`). */
export interface OutboxOptions {
  /**
   * Keep events in a transactional outbox table: each unit of work writes
   * its events in its own transaction, and a relay in every worker publishes
   * what a crashed publisher left. `false` publishes after commit without a
   * safety net.
   * @defaultValue `true`
   */
  enabled: boolean;
  /**
   * Outbox rows older than this, in milliseconds, are taken to be left by a
   * publisher that died between commit and publish, and are republished.
   * An ordered key's lane waits `2 × (graceMs + relayEveryMs)` for a missing
   * position before it goes on from the next it holds (a re-base).
   * @defaultValue `5_000`
   */
  graceMs: number;
  /**
   * How often a worker's relay looks for left-behind outbox rows, in milliseconds.
   * @defaultValue `1_000`
   */
  relayEveryMs: number;
  /**
   * Most outbox rows a relay claims and publishes in one transaction.
   * @defaultValue `500`
   */
  relayBatchSize: number;
}

/** Ordered lanes: whether workers run them, how many keys at once, leases and upkeep. */
export interface OrderingOptions {
  /**
   * Whether workers run ordered lanes (two more Redis connections per worker
   * and an upkeep call every `upkeepMs`). `auto`: when a registered event
   * class has `orderBy`; `on`: always; `off`: never, and ordered events are
   * refused with `OrderingDisabledError`. Give every process of a bus the
   * same value.
   * @defaultValue `'auto'`
   */
  mode: OrderingMode;
  /**
   * How many order keys one worker process handles at once (each key's
   * events one after the other).
   * @defaultValue `64`
   */
  concurrency: number;
  /**
   * A worker's lease on the order keys it is handling, in milliseconds:
   * renewed every `upkeepMs`; when its worker dies, another worker resumes
   * each key at the event it stopped on once the lease lapses. Keep it well
   * above `upkeepMs`.
   * @defaultValue `30_000`
   */
  leaseMs: number;
  /**
   * How often each worker runs lane upkeep, in milliseconds: renews its
   * lease, hands dead workers' keys back, and queues keys whose retry is due.
   * @defaultValue `250`
   */
  upkeepMs: number;
}

/** Idempotent handlers' completion records. */
export interface IdempotencyOptions {
  /**
   * How long completion records are kept, in milliseconds; workers delete
   * older ones. An event redelivered later than this runs its idempotent
   * handlers again.
   * @defaultValue `604_800_000` (7 days)
   */
  retentionMs: number;
}

/** Workers' registrations: how often each beats, and when one whose beats stopped counts as gone. */
export interface WorkersOptions {
  /**
   * How often each worker stores its beat (host, pid, version, busy count)
   * in the transport, in milliseconds; `bus.status().workers` lists them.
   * @defaultValue `5_000`
   */
  beatEveryMs: number;
  /**
   * A worker whose last beat is older than this, in milliseconds, is shown
   * as gone (`alive: false`, not counted in `commitbus_workers`); records
   * ten times older are removed. Keep it a few beats long: 3 missed beats
   * by default.
   * @defaultValue `15_000`
   */
  goneAfterMs: number;
}

/** The bus's history per minute (`bus.history()`, the dashboard's charts). */
export interface HistoryOptions {
  /**
   * Whether this bus's processes count what they publish and handle and
   * store it per minute in the transport (the last 24 hours, 1,440 minutes).
   * Off, nothing is counted or stored, and `bus.history()` reads only what
   * other processes stored.
   * @defaultValue `true`
   */
  enabled: boolean;
  /**
   * How often each process adds what it counted into the transport's
   * current minute (and samples the backlog, where a worker runs), in
   * milliseconds; a last flush runs when the bus closes.
   * @defaultValue `5_000`
   */
  flushEveryMs: number;
}

/** The audit trail of operator actions (`bus.audit`, `commitbus audit`). */
export interface AuditOptions {
  /**
   * The most operator actions the transport keeps; appending more removes
   * the oldest.
   * @defaultValue `10_000`
   */
  maxEntries: number;
}

/** Scheduling rules (pause, block). */
export interface SchedulingOptions {
  /**
   * How often each worker reloads the rules and releases parked work of
   * handlers no longer paused, in milliseconds. A rule set from any process
   * takes effect on every worker within this time.
   * @defaultValue `500`
   */
  rulesRefreshMs: number;
}

/** Dead letters: how many the store keeps, and for how long (the oldest dropped first beyond either). */
export interface DeadLetterOptions {
  /**
   * The most dead letters kept; storing more drops the oldest (by when they
   * were given up), each counted in `status().deadLetters.dropped` and
   * `commitbus_dead_letters_dropped_total`. `0` keeps every letter.
   * @defaultValue `10_000`
   */
  maxCount: number;
  /**
   * How long a dead letter is kept after it was given up, in milliseconds;
   * older ones are dropped when letters are next stored. `0` keeps them
   * however old.
   * @defaultValue `15_552_000_000` (180 days)
   */
  maxAgeMs: number;
}
