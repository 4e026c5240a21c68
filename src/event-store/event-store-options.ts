import type { DataSource } from 'typeorm';
import type { Logger } from '../support/logger.js';
import type { RetryPolicy } from '../support/retry-policy.js';
import type { UnitOfWorkBus } from '../uow/unit-of-work-bus.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { EventModel, Listener } from './event-model.js';

/** What {@link createEventStore} takes. Every number is optional, with the default shown. */
export interface EventStoreOptions {
  /** The DataSource holding the store's tables and the models' tables (PostgreSQL or SQLite). */
  readonly dataSource: DataSource;
  /** The models, each owning one table; reducers run in this order's results. */
  // biome-ignore lint/suspicious/noExplicitAny: models of different row types live in one list
  readonly models: readonly EventModel<any>[];
  /** The bus that `ctx.uow.register(new SendEventOp(e))` in the cycle sends through (its outbox). */
  readonly bus?: UnitOfWorkBus;
  /** Called after each event's transaction commits, in the writer process, with its history. */
  readonly listeners?: readonly Listener[];
  /**
   * An event type no model knows: `'halt'` records the error and halts (an
   * operator skips it or a deploy adds the model); `'record'` records it as
   * `ignored` and goes on. `dispatch` in this process refuses unknown types
   * either way, unless `dispatchUnknownTypes` is true.
   * @defaultValue `'halt'`
   */
  readonly unknownTypes?: 'halt' | 'record';
  /** Let `dispatch` queue types no model here knows (another process's version may). @defaultValue false */
  readonly dispatchUnknownTypes?: boolean;
  /** Largest event data, serialized, in bytes. @defaultValue 1_000_000 */
  readonly maxEventBytes?: number;
  /** Events handled in one transaction at most. @defaultValue 200 */
  readonly batchSize?: number;
  /** How often an idle writer and waiting dispatchers look at the database, in ms. @defaultValue 50 */
  readonly pollMs?: number;
  /** How often a process that is not the writer tries to become it, in ms. @defaultValue 500 */
  readonly takeoverMs?: number;
  /** The writer lease on SQLite, in ms. @defaultValue 15000 */
  readonly leaseMs?: number;
  /** First wait before a failed event is retried, in ms; doubles per attempt. @defaultValue 1000 */
  readonly retryDelayMs?: number;
  /** Longest wait between retries of a failed event, in ms. @defaultValue 300000 */
  readonly maxRetryDelayMs?: number;
  /**
   * PostgreSQL: how long the server lets the writer's connection wait on its
   * process (`idle_in_transaction_session_timeout` inside a batch,
   * `idle_session_timeout` between batches) before it ends the session, so
   * that a writer process that is frozen (SIGSTOP, a stuck VM) loses the
   * lock to another process. A live writer sends a statement every third of
   * it during a long batch, so only a process that stopped running is cut.
   * @defaultValue 60000
   */
  readonly writerIdleTimeoutMs?: number;
  /**
   * How long one callback of the cycle (a preprocessor, reducer, apply
   * step, deriver or transact) may take. One that has not settled by then
   * fails its event, which halts like any failure; on PostgreSQL the
   * writer's connection is ended (its code may still have a query in flight
   * there) and the writer carries on with a new one. The callback itself is
   * abandoned, not stopped. Keep it below `writerIdleTimeoutMs`.
   * @defaultValue 30000
   */
  readonly stepTimeoutMs?: number;
  /**
   * SQLite: switch the database file to WAL and the connection to
   * `synchronous = FULL` when the store is first used (strato-db's
   * settings: one fsync per commit, and a committed event survives a power
   * cut). `false` leaves the journal mode and `synchronous` as the
   * DataSource opened them (set yours in TypeORM's `prepareDatabase`).
   * PostgreSQL: ignored.
   * @defaultValue true
   */
  readonly sqliteWal?: boolean;
  /** Where the writer reports failures. @defaultValue `consoleLogger` */
  readonly logger?: Logger;
}

/** The options with defaults filled in. */
export type ResolvedEventStoreOptions = Required<Omit<EventStoreOptions, 'bus'>> &
  Pick<EventStoreOptions, 'bus'>;

/** Default values of the numeric options. */
export const EVENT_STORE_DEFAULTS = {
  unknownTypes: 'halt',
  dispatchUnknownTypes: false,
  maxEventBytes: 1_000_000,
  batchSize: 200,
  pollMs: 50,
  takeoverMs: 500,
  leaseMs: 15_000,
  retryDelayMs: 1_000,
  maxRetryDelayMs: 300_000,
  writerIdleTimeoutMs: 60_000,
  stepTimeoutMs: 30_000,
  sqliteWal: true,
} as const satisfies Partial<EventStoreOptions>;

/**
 * The retry policy of a halted event (the writer's) and of a failed event of
 * a subscription: `retryDelayMs`, doubling per attempt, at most `maxRetryDelayMs`.
 */
export function haltRetryPolicy(options: {
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}): RetryPolicy {
  return { type: 'exponential', delayMs: options.retryDelayMs, maxDelayMs: options.maxRetryDelayMs };
}

/** Checks what {@link createEventStore} was given; throws `EventStoreUsageError` saying what is wrong. */
export function checkOptions(options: EventStoreOptions): void {
  const fail = (message: string): never => {
    throw new EventStoreUsageError(`createEventStore: ${message}`);
  };
  if (options === null || typeof options !== 'object' || options.dataSource === undefined)
    fail('pass { dataSource, models }');
  if (!Array.isArray(options.models)) fail('models must be an array of defineModel(...) models');
  for (const key of [
    'maxEventBytes',
    'batchSize',
    'pollMs',
    'takeoverMs',
    'leaseMs',
    'retryDelayMs',
    'maxRetryDelayMs',
    'writerIdleTimeoutMs',
    'stepTimeoutMs',
  ] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647)) {
      fail(`${key} must be a whole number from 1 to 2147483647, got ${String(value)}`);
    }
  }
  if (options.sqliteWal !== undefined && typeof options.sqliteWal !== 'boolean') {
    fail(`sqliteWal must be true or false, got ${String(options.sqliteWal)}`);
  }
  if (
    options.unknownTypes !== undefined &&
    options.unknownTypes !== 'halt' &&
    options.unknownTypes !== 'record'
  ) {
    fail(`unknownTypes must be 'halt' or 'record', got ${String(options.unknownTypes)}`);
  }
}
