import type { BackoffOptions } from '../handlers/backoff.js';

/** Which transport carries events between publishers and workers. */
export type TransportKind = 'memory' | 'bullmq';

/**
 * Every option of commitbus, with its default. Pass a partial object to
 * {@link resolveConfig} (or to `createEventBus`) and the rest is filled in from
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
   * Prefix of every Redis key commitbus and its BullMQ queues write. Give each
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
  defaultBackoff: Object.freeze({ type: 'exponential', delayMs: 1_000, jitter: 0.5 }),
  handlerTimeoutMs: 30_000,
  publishAttempts: 5,
  publishBackoffMs: 100,
  shutdownTimeoutMs: 30_000,
} satisfies CommitbusConfig);
