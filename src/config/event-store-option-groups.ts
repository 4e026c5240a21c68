/**
 * The event store's and its subscriptions' options that have defaults (their
 * values are in `DEFAULTS.eventStore`, `config.ts`): pure shapes, so that
 * every default lives in one object in this room. `EventStoreOptions` and
 * `SubscriptionOptions` (the event-store room) extend them with what has no
 * default (the DataSource, the models, the bus, the logger; a
 * subscription's name, handler and types).
 */

/**
 * The statuses of history events a subscription can be given: every status
 * of a stored event but `'queued'` (written out here, below the event store;
 * `test/config/defaults.test.ts` keeps the two in step).
 */
export type DeliveredStatus = 'handled' | 'skipped' | 'ignored' | 'rejected';

/** Where a new subscription starts: at v1, after the version handled now, or at version `v`. */
export type SubscriptionStart = 'beginning' | 'end' | number;

/** The event store's tunable options. Every one is optional, with the default shown. */
export interface EventStoreTuning {
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
}

/** A durable subscription's tunable options. Every one is optional, with the default shown. */
export interface SubscriptionTuning {
  /**
   * Where it starts when it has no checkpoint yet: `'beginning'` (v1),
   * `'end'` (after the version handled when it is first started) or a version
   * (the first one it gets). An existing checkpoint is kept; move it with
   * `store.subscriptions.reset`.
   * @defaultValue `'beginning'`
   */
  readonly from?: SubscriptionStart;
  /**
   * Only events of these statuses reach the handler (the checkpoint passes
   * the others). `skipped` events are those an operator stepped over: they
   * changed nothing.
   * @defaultValue `['handled', 'ignored']`
   */
  readonly statuses?: readonly DeliveredStatus[];
  /** Events read in one page; the checkpoint is stored after each page (so at most this many come again after a crash). @defaultValue 100 */
  readonly batchSize?: number;
  /** How often an idle consumer looks for new versions, in ms (the writer's process also wakes it at once). @defaultValue 100 */
  readonly pollMs?: number;
  /** The consumer's lease on the checkpoint row, in ms; renewed every third of it. A crashed consumer's work is taken over after it. @defaultValue 15000 */
  readonly leaseMs?: number;
  /** How often a process that is not the consumer tries to become it, in ms. @defaultValue 1000 */
  readonly takeoverMs?: number;
  /** First wait before a failed event is tried again, in ms; doubles per attempt. @defaultValue 1000 */
  readonly retryDelayMs?: number;
  /** Longest wait between tries of a failed event, in ms. @defaultValue 60000 */
  readonly maxRetryDelayMs?: number;
  /** Tries of one event before the subscription halts at it. @defaultValue 10 */
  readonly maxAttempts?: number;
  /** How long one call of the handler may take, in ms; past it the try fails (`SubscriptionHandlerTimeoutError`) and is retried. @defaultValue 60000 */
  readonly handlerTimeoutMs?: number;
  /** How long `stop()` waits for the handler running, in ms, before it aborts `ctx.signal` and lets go. @defaultValue 30000 */
  readonly stopTimeoutMs?: number;
}

/** The event store's defaults (`DEFAULTS.eventStore`), its subscriptions' beside them. */
export interface EventStoreDefaults extends Required<EventStoreTuning> {
  /** Every subscription's, unless its `start` says otherwise. */
  readonly subscription: Required<SubscriptionTuning>;
}
