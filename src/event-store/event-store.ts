import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import { defaultLogger } from '../support/default-logger.js';
import type { Logger } from '../support/logger.js';
import { withTransactionGate } from '../uow/transaction-gate.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { currentUnitOfWork } from '../uow/unit-of-work-context.js';
import type { DispatchTarget } from './dispatch.op.js';
import { DispatchBatcher } from './dispatch-batcher.js';
import type { DispatchOptions } from './dispatch-options.js';
import { EventStoreNotConfiguredError } from './errors/event-store-not-configured.error.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import { UnknownStoreEventTypeError } from './errors/unknown-store-event-type.error.js';
import { type CycleSetting, insideWriter } from './event-cycle.js';
import type { Listener } from './event-model.js';
import { EventQueue, type PreparedEvent } from './event-queue.js';
import { checkOptions, EVENT_STORE_DEFAULTS, type EventStoreOptions } from './event-store-options.js';
import { type EventStoreStatus, readEventStoreStatus } from './event-store-status.js';
import { type FailureListener, FailureNotices, type StoreFailure } from './failure-notices.js';
import { handledOutcome } from './handled-outcome.js';
import { ListenerQueue } from './listener-queue.js';
import { checkModelTables } from './model-tables.js';
import {
  checkVersion,
  haltedEvent,
  type OperatorNote,
  operatorAction,
  reportOperatorAction,
} from './operator-actions.js';
import { type DispatchLimits, prepareEvent } from './prepare-event.js';
import { type PruneOptions, pruneHistory } from './prune.js';
import { pickModels, type ReplayOptions, type ReplayReport, replayModels } from './replay.js';
import { knownTypes, resolveModels } from './resolved-model.js';
import { useWal } from './sqlite-journal.js';
import type { HistoryEvent, StoreEvent } from './store-event.js';
import { StoreProcessor } from './store-processor.js';
import { StoreTables } from './store-tables.js';
import { Subscriptions } from './subscriptions/subscriptions.js';
import { VersionWatch, waitTimeout } from './version-watch.js';

/**
 * An event-sourced store: events are queued with gap-free versions, and one
 * writer across all processes reduces them, one at a time in version order,
 * into the models' tables, each in the same transaction as its version bump.
 * Make one with {@link createEventStore}; `start()` joins the race to be the
 * writer; `dispatch` works in any process.
 */
export class EventStore implements DispatchTarget {
  /** The DataSource holding its tables. */
  readonly dataSource: DataSource;
  private readonly tables: StoreTables;
  private readonly queue: EventQueue;
  private readonly setting: CycleSetting;
  private readonly watch: VersionWatch;
  private readonly processor: StoreProcessor;
  private readonly batcher: DispatchBatcher;
  private readonly listeners: Listener[];
  private readonly listenerQueue: ListenerQueue;
  private readonly failures: FailureNotices;
  private readonly limits: DispatchLimits;
  private readonly logger: Logger;
  private readonly bus: EventStoreOptions['bus'];
  /** Durable subscriptions to the history, with stored checkpoints, in any process (see {@link Subscriptions}). */
  readonly subscriptions: Subscriptions;
  private ready: Promise<void> | undefined;
  private closed = false;
  private readonly sqliteWal: boolean;

  constructor(options: EventStoreOptions) {
    checkOptions(options);
    const o = { ...EVENT_STORE_DEFAULTS, ...options };
    this.dataSource = o.dataSource;
    this.tables = new StoreTables(o.dataSource);
    this.queue = new EventQueue(this.tables);
    const models = resolveModels(o.dataSource, o.models);
    const known = knownTypes(models);
    this.setting = { models, known, unknownTypes: o.unknownTypes, stepTimeoutMs: o.stepTimeoutMs };
    const refuse = (t: string): never => {
      throw new UnknownStoreEventTypeError(t, [...known]);
    };
    this.limits = {
      maxEventBytes: o.maxEventBytes,
      ...(o.dispatchUnknownTypes ? {} : { knownTypes: known, onUnknown: refuse }),
    };
    this.listeners = [...(o.listeners ?? [])];
    // A store on a bus logs where the bus does; alone, on the default logger.
    this.logger = o.logger ?? o.bus?.logger ?? defaultLogger();
    this.sqliteWal = o.sqliteWal && this.tables.dialect === 'sqlite';
    this.listenerQueue = new ListenerQueue(this.listeners, this.logger);
    this.subscriptions = new Subscriptions(this, this.logger);
    this.failures = new FailureNotices(this.logger);
    this.bus = options.bus;
    options.bus?.useDataSource(o.dataSource);
    this.watch = new VersionWatch(o.dataSource, this.queue, o.pollMs);
    this.processor = new StoreProcessor(
      {
        dataSource: o.dataSource,
        queue: this.queue,
        setting: this.setting,
        bus: options.bus,
        watch: this.watch,
        listeners: this.listenerQueue,
        failures: this.failures,
      },
      {
        batchSize: o.batchSize,
        pollMs: o.pollMs,
        takeoverMs: o.takeoverMs,
        leaseMs: o.leaseMs,
        retryDelayMs: o.retryDelayMs,
        maxRetryDelayMs: o.maxRetryDelayMs,
        writerIdleTimeoutMs: o.writerIdleTimeoutMs,
        owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
        logger: this.logger,
      },
    );
    this.batcher = new DispatchBatcher(o.dataSource, this.queue, this.processor);
  }

  /** The event types some model knows. */
  get knownTypes(): readonly string[] {
    return [...this.setting.known];
  }

  /** The names of the store's models, as `replay({ models })` takes them. */
  get modelNames(): readonly string[] {
    return this.setting.models.map((model) => model.name);
  }

  /** Whether this process is the writer now. */
  get isWriter(): boolean {
    return this.processor.isWriter;
  }

  /** Checks the tables and starts competing to be the writer; resolves once checked. */
  async start(): Promise<void> {
    this.open();
    await this.init();
    await withTransactionGate(this.dataSource, () => checkModelTables(this.dataSource, this.setting.models));
    this.processor.start();
  }

  /**
   * Queues an event and, unless `{ wait: false }`, resolves with its history
   * once handled. Rejects with `EventStoreHaltedError` when it (or an
   * event before it) fails, `EventSkippedError` when it was skipped
   * (or ignored as an unknown type), `EventRejectedError` when a reducer
   * rejected it (`esFail`).
   * Inside a unit of work, register a {@link DispatchOp} instead.
   */
  dispatch<D = unknown>(
    type: string,
    data?: D,
    options?: DispatchOptions & { wait?: true },
  ): Promise<HistoryEvent<D>>;
  /** Queues an event and resolves once it is queued, with its version. */
  dispatch<D = unknown>(
    type: string,
    data: D,
    options: DispatchOptions & { wait: false },
  ): Promise<StoreEvent<D>>;
  async dispatch(
    type: string,
    data?: unknown,
    options: DispatchOptions = {},
  ): Promise<HistoryEvent | StoreEvent> {
    this.open();
    if (insideWriter.getStore() === 'cycle') {
      throw new EventStoreUsageError(
        `store.dispatch("${String(type)}") was called while an event is handled: it would wait for itself. Use ctx.addEvent (or return { events }) for a sub-event, or dispatch from transact's ctx.dispatch`,
      );
    }
    const uow = currentUnitOfWork();
    if (uow !== undefined && uow.manager.connection === this.dataSource) {
      throw new EventStoreUsageError(
        `store.dispatch("${String(type)}") was called inside a unit of work, outside its transaction: register new DispatchOp(store, type, data) on the unit of work so the event is queued only if it commits`,
      );
    }
    const event = this.prepare(type, data, options);
    await this.init();
    const v = await this.batcher.add(event);
    if (options.wait === false) return { v, type: event.type, ts: event.ts, data: event.data };
    return this.awaitHandled(v, options.timeoutMs);
  }

  /** The version the tables are at (the last handled event), read from the database. */
  async getVersion(): Promise<number> {
    this.open();
    return (await this.read((manager) => this.queue.versions(manager))).handled;
  }

  /**
   * Resolves with event `v`'s history once the store is at `v` or beyond,
   * whichever process handled it; a version not queued yet is waited for
   * (bound it with `timeoutMs`: `EventStoreTimeoutError`). Rejects as `dispatch` does.
   */
  async handledVersion(v: number, options: { timeoutMs?: number } = {}): Promise<HistoryEvent> {
    this.open();
    if (!Number.isSafeInteger(v) || v < 1)
      throw new EventStoreUsageError(`handledVersion takes a version from 1 up, got ${String(v)}`);
    await this.init();
    return this.awaitHandled(v, options.timeoutMs);
  }

  // Waits for event v (known to be queued) and gives its history.
  private async awaitHandled(v: number, timeoutMs: number | undefined): Promise<HistoryEvent> {
    const reached = await this.watch.until(v, { halt: 'own', ...waitTimeout(timeoutMs) });
    const [event] = reached.event
      ? [reached.event]
      : await this.read((manager) => this.queue.history(manager, [v]));
    return handledOutcome(v, event);
  }

  /**
   * Resolves with the version once every event queued before the call (by
   * any process) is handled. Rejects with `EventStoreHaltedError` when one of
   * them fails, `EventStoreTimeoutError` after `timeoutMs`.
   */
  async waitForQueue(options: { timeoutMs?: number } = {}): Promise<number> {
    this.open();
    if (insideWriter.getStore() === 'cycle') {
      throw new EventStoreUsageError(
        'store.waitForQueue() was called from a reducer, deriver or transact: the writer runs them and would wait for itself',
      );
    }
    const { queued } = await this.read((manager) => this.queue.versions(manager));
    if (queued === 0) return 0;
    return (await this.watch.until(queued, { halt: 'any', ...waitTimeout(options.timeoutMs) })).version;
  }

  /**
   * Adds a failure listener, called in the writer process with each failed
   * attempt of the event it halts at and each event a reducer rejected
   * ({@link StoreFailure}); returns a remover. Its own failure is logged.
   */
  onFailure(listener: FailureListener): () => void {
    return this.failures.add(listener);
  }

  /** Adds a listener, called after each event's commit in the writer process; returns a remover. */
  addListener(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** The event the store is halted at (with its `error`), or `undefined` when it is not halted. */
  halted(): Promise<HistoryEvent | undefined> {
    this.open();
    return this.read((manager) => haltedEvent(this.queue, manager));
  }

  /** Where the store stands: its version, events queued, the halted event, whether this process writes. */
  status(): Promise<EventStoreStatus> {
    this.open();
    return this.read((manager) => readEventStoreStatus(this.queue, manager, this.isWriter));
  }

  /** History rows `from..to` (inclusive), in order. */
  history(from: number, to: number): Promise<HistoryEvent[]> {
    this.open();
    const integers = Number.isSafeInteger(from) && Number.isSafeInteger(to);
    if (!integers || from < 1 || to < from || to - from >= 10_000) {
      throw new EventStoreUsageError(
        `history(from, to) reads 1 to 10,000 rows, from v1 up; got ${String(from)}..${String(to)}: read long ranges page by page`,
      );
    }
    return this.read((manager) => this.queue.range(manager, from, to));
  }

  /** Retries the halted event now instead of after its backoff; logged in its audit trail. */
  async retry(note: OperatorNote = {}): Promise<HistoryEvent> {
    const event = await this.halted();
    if (event === undefined)
      throw new EventStoreUsageError('the event store is not halted: nothing to retry');
    return this.act('retry', event.v, note);
  }

  /**
   * Records event `v`, the next one to handle (the one the store is halted
   * at, usually), as skipped, keeping its error, and goes on with the next.
   */
  skip(v: number, note: OperatorNote = {}): Promise<HistoryEvent> {
    return this.act('skip', v, note);
  }

  /** Replaces the data of queued event `v` (checked as at dispatch) and retries it. */
  correct(v: number, data: unknown, note: OperatorNote = {}): Promise<HistoryEvent> {
    return this.act('correct', v, note, data);
  }

  /** Deletes history rows (see {@link PruneOptions}); returns how many. */
  prune(options: PruneOptions): Promise<number> {
    this.open();
    return this.read((manager) => pruneHistory(this.queue, manager, options));
  }

  /** Rebuilds models from history as the writer (see `replayModels`). */
  async replay(options: ReplayOptions = {}): Promise<ReplayReport> {
    this.open();
    // Before waiting for the writer role: a model no one has is refused at once.
    pickModels(this.setting.models, options.models);
    await this.init();
    return this.processor.asWriter(options.timeoutMs ?? 30_000, async (runner) => {
      const tuning = await this.processor.tune(runner);
      return withTransactionGate(this.dataSource, () =>
        replayModels(runner, this.queue, this.setting, tuning, options),
      );
    });
  }

  /** Stops the subscriptions started here and the writer (after its current batch: up to `stepTimeoutMs` when a step hangs) and rejects pending waits. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriptions.close();
    await this.processor.stop();
    this.watch.close();
    if (!(await this.listenerQueue.idle(5_000))) {
      this.logger.warn({}, 'event store: closed with listeners still running after 5 s (one never settles?)');
    }
  }

  /** Checks and serializes an event as `dispatch` does (used by {@link DispatchOp}). */
  prepare(type: string, data: unknown, options: { important?: boolean; ts?: number } = {}): PreparedEvent {
    return prepareEvent(type, data, this.limits, options);
  }

  /** Queues events in a unit of work's transaction (used by {@link DispatchOp}). */
  appendIn(uow: UnitOfWork, events: readonly PreparedEvent[]): Promise<number[]> {
    this.open();
    if (uow.manager.connection !== this.dataSource) {
      throw new EventStoreUsageError(
        "a DispatchOp was registered on a unit of work of another DataSource than its store's",
      );
    }
    return this.queue.append(uow.manager, events);
  }

  /** Tells this process's writer that events were queued (used by {@link DispatchOp}). */
  queued(): void {
    this.processor.wake();
  }

  private async act(
    action: 'retry' | 'skip' | 'correct',
    v: number,
    note: OperatorNote,
    data?: unknown,
  ): Promise<HistoryEvent> {
    this.open();
    checkVersion(action, v);
    let json: string | undefined;
    if (action === 'correct') {
      const [queued] = await this.history(v, v);
      // A missing event is refused below, with a message that says so.
      if (queued !== undefined) json = this.prepare(queued.type, data).json;
    }
    const event = await withTransactionGate(this.dataSource, () =>
      this.dataSource.transaction((manager) => operatorAction(this.queue, manager, action, v, note, json)),
    );
    this.processor.wake();
    await reportOperatorAction(this.logger, this.bus?.audit, action, event, note);
    return event;
  }

  private read<T>(fn: (manager: DataSource['manager']) => Promise<T>): Promise<T> {
    if (insideWriter.getStore() === 'cycle') {
      return Promise.reject(
        new EventStoreUsageError(
          "the event store's own reads (getVersion, history, halted, ...) were called while an event is handled: read through ctx.manager, in the cycle's transaction",
        ),
      );
    }
    return withTransactionGate(this.dataSource, () => fn(this.dataSource.manager));
  }

  private init(): Promise<void> {
    this.ready ??= withTransactionGate(this.dataSource, async () => {
      if (this.sqliteWal) await useWal(this.dataSource, this.logger);
      await this.queue.ensureState(this.dataSource.manager);
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw EventStoreNotConfiguredError.ifTablesMissing(error);
    });
    return this.ready;
  }

  private open(): void {
    if (this.closed)
      throw new EventStoreUsageError('the event store is closed: make a new one with createEventStore');
  }
}
