import type { DataSource } from 'typeorm';
import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import { warnDeprecatedOptions } from '../config/deprecation-warnings.js';
import { resolveOptions } from '../config/resolve-options.js';
import { withTransportSettings } from '../config/transport-settings.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import type { DeliveryOptions } from '../events/delivery-options.js';
import type { Event } from '../events/event.js';
import { EventRegistry } from '../events/event-registry.js';
import { EventSerializer } from '../events/event-serializer.js';
import type { OutgoingEvent } from '../events/outgoing-event.js';
import type { BusObserver } from '../handlers/bus-observer.js';
import { HandlerTable } from '../handlers/handler-table.js';
import { observedDeadLetters } from '../handlers/observed-dead-letters.js';
import { ObserverSet } from '../handlers/observer-set.js';
import type { HistoryPoint } from '../metrics/history-store.js';
import { OrderedKeys } from '../ordering/ordered-keys.js';
import { orderedLanesEnabled } from '../ordering/ordered-lanes-enabled.js';
import type { EncodedEvent } from '../ordering/routing.js';
import { Outbox } from '../outbox/outbox.js';
import { OutboxRelay } from '../outbox/outbox-relay.js';
import type { RouterStores } from '../router/router-stores.js';
import { KnownTargets } from '../scheduling/known-targets.js';
import type { ScheduledEventFactory, ScheduleHandle, ScheduleWhen } from '../scheduling/schedule.js';
import { Schedules } from '../scheduling/schedules.js';
import { SchedulingRules } from '../scheduling/scheduling-rules.js';
import { defaultLogger } from '../support/default-logger.js';
import type { Logger } from '../support/logger.js';
import { OperatorAudit } from '../support/operator-audit.js';
import { logTraceFields } from '../tracing/log-trace-fields.js';
import type { UnitOfWorkBus, UnitOfWorkEvents } from '../uow/unit-of-work-bus.js';
import { adapterOf } from './bus-adapter.js';
import { registerBusKinds } from './bus-dead-letter-kinds.js';
import { BusHistory, type HistoryQuery } from './bus-history.js';
import { busNameOf } from './bus-name.js';
import type { BusStatus } from './bus-status.js';
import { closedBusStore } from './closed-bus-store.js';
import { BusClosedError } from './errors/bus-closed.error.js';
import { DataSourceMismatchError } from './errors/data-source-mismatch.error.js';
import { RouterStoresUnsupportedError } from './errors/router-stores-unsupported.error.js';
import type { EventBusOptions, RunningWorker, StartWorkerOptions } from './event-bus-options.js';
import { backlogOf, waitUntilIdle } from './idle.js';
import { observerOf } from './options-observer.js';
import { ownMetricsOf } from './own-metrics.js';
import { readPausedQueues } from './paused-queues.js';
import { Publishing } from './publishing.js';
import { readBusStatus } from './read-bus-status.js';
import { type RunsOn, runsOnOf } from './runs-on.js';
import { startBusWorker } from './start-worker.js';
import type { Transport, TransportAdapter } from './transport.js';

/**
 * The event bus: publishes events and runs workers that hand them to the
 * handlers in `EVENT_HANDLERS`. It wires the rooms below to one transport.
 */
export class EventBus implements UnitOfWorkBus {
  /** The bus's options, every group filled in (`DEFAULT_CONFIG`'s shape), the adapter's Redis applied. */
  readonly config: ResolvedCommitbusOptions;
  /** @internal The known event classes. */
  readonly registry: EventRegistry;
  /** @internal Encodes and decodes events. */
  readonly serializer: EventSerializer;
  /** @internal The validated handler configuration. */
  readonly handlers: HandlerTable;
  /** @internal Where events travel: the adapter's ports. */
  readonly transport: Transport;
  /** What the bus runs on: its transport's name, whether it is in this process only, where its data lives. */
  readonly runsOn: RunsOn;
  /** Pause, resume, block and unblock handlers, from any process of the bus. */
  readonly rules: SchedulingRules;
  /** Work given up after its last attempt: list, inspect, re-drive, purge. */
  readonly deadLetters: DeadLetters;
  /** Order keys halted by a handler that gave up: list, re-drive, skip. */
  readonly ordering: OrderedKeys;
  /** Where the bus logs. */
  readonly logger: Logger;
  /** The audit trail of operator actions taken on this bus from any process: `list()` newest first. */
  readonly audit: OperatorAudit;
  private readonly publishing: Publishing;
  private readonly historyOf: BusHistory;
  /** Whether this bus's workers run ordered lanes (`config.ordering`). */
  private readonly orderedLanes: boolean;
  private readonly observers: ObserverSet;
  private readonly workers = new Set<RunningWorker>();
  private readonly schedules: Schedules;
  private outboxOf: Outbox | undefined;
  private dataSourceOf: DataSource | undefined;
  private relay: OutboxRelay | undefined;
  private routerStores: RouterStores | undefined;
  /** The bus's own metrics, built by the first worker that serves them (see `ownMetricsOf`). */
  private readonly ownMetrics = ownMetricsOf(this);
  private closed = false;

  /**
   * @param options - what `createEventBus` takes.
   * @param transport - an opened transport (tests); by default `options.transport` opened, else the embedded default.
   */
  constructor(options: EventBusOptions, transport?: Transport) {
    this.logger = options.logger ?? defaultLogger({ bus: busNameOf(options.config), mixin: logTraceFields });
    const resolved = resolveOptions(options.config, warnDeprecatedOptions(this.logger));
    const adapter = transport === undefined ? adapterOf(options) : options.transport;
    this.config = withTransportSettings(resolved, adapter?.settings);
    this.observers = new ObserverSet(this.logger);
    const hooks = observerOf(options);
    // Only when it has a hook: with no observer (and history.enabled off), handler runs skip the timing and notices.
    if (Object.values(hooks).some((hook) => hook !== undefined)) this.observers.add(hooks);
    this.registry = new EventRegistry(options.events);
    this.serializer = new EventSerializer(this.registry);
    this.handlers = new HandlerTable(options.handlers ?? {}, this.registry, this.config.handlers);
    this.transport =
      transport ?? (adapter as TransportAdapter).open({ config: this.config, logger: this.logger });
    this.runsOn = runsOnOf(this.transport, adapter);
    this.orderedLanes = orderedLanesEnabled(this.config.ordering.mode, this.registry);
    this.publishing = new Publishing({
      publishing: this.config.publishing,
      orderingMode: this.config.ordering.mode,
      orderedLanes: this.orderedLanes,
      serializer: this.serializer,
      publisher: this.transport,
      transactional: this.transport.transactional,
      logger: this.logger,
      deadLetters: observedDeadLetters(this.transport.deadLetters, this.observers),
      outbox: () => this.outboxOf,
      afterPublish: (outgoing, events) => this.afterPublish(outgoing, events),
    });
    this.audit = new OperatorAudit(this.transport.audit, this.logger);
    this.historyOf = new BusHistory({
      transport: this.transport,
      settings: this.config.history,
      observers: this.observers,
      logger: this.logger,
      workerRuns: () => this.workers.size > 0,
    });
    const store = closedBusStore(this.transport.deadLetters, () => this.closed);
    this.deadLetters = new DeadLetters({ store, logger: this.logger, audit: this.audit });
    registerBusKinds({
      kinds: this.deadLetters.kinds,
      handlers: this.handlers,
      decode: (payload) => this.serializer.deserialize(payload),
      transport: this.transport,
      publishing: this.publishing,
      batches: () => this.router.batches,
    });
    this.ordering = new OrderedKeys(this.transport.ordering, (a, e) => this.failure(a, e), this.audit);
    this.rules = new SchedulingRules(
      this.transport.rules,
      new KnownTargets(this.registry, this.handlers),
      this.config.scheduling.rulesRefreshMs,
      this.logger,
      this.audit,
    );
    this.schedules = new Schedules({
      store: this.transport.ticks,
      publish: (events) => this.publishing.publish(events),
      publishing: this.config.publishing,
      logger: this.logger,
    });
    if (options.dataSource !== undefined) this.useDataSource(options.dataSource);
  }

  /** @internal The transactional outbox, when the bus has a DataSource and `outbox.enabled` is on. */
  get outbox(): Outbox | undefined {
    return this.outboxOf;
  }

  /**
   * The HTTP event router's stores on this bus's transport (opened on first
   * use, closed with the bus): what `topicRoute` publishes to
   * (`store: () => bus.router.batches`), and what `startRouter` runs on in
   * this process (`startRouter(config, options, { stores: bus.router })`).
   * Given-up webhook batches share the bus's dead letters.
   */
  get router(): RouterStores {
    if (this.transport.routerStores === undefined)
      throw new RouterStoresUnsupportedError(this.transport.name);
    this.routerStores ??= this.transport.routerStores({ deadLetters: this.transport.deadLetters });
    return this.routerStores;
  }

  /** The DataSource of the outbox and of idempotent handlers' records, if any. */
  get dataSource(): DataSource | undefined {
    return this.dataSourceOf;
  }

  /**
   * Keeps this bus's outbox in `dataSource` and starts relaying rows left
   * there; called for you by `createEventBus({ dataSource })` and by the
   * first `UnitOfWorkManager` on a bus without one (with `outbox.enabled` off
   * it is used for idempotent handlers' records only). A bus has one
   * DataSource: a second, different one is refused.
   */
  useDataSource(dataSource: DataSource): void {
    if (this.dataSourceOf !== undefined && this.dataSourceOf !== dataSource) {
      throw new DataSourceMismatchError();
    }
    this.dataSourceOf = dataSource;
    if (!this.config.outbox.enabled || this.outboxOf !== undefined) return;
    const outbox = new Outbox(dataSource, this.config.outbox, this.logger);
    this.outboxOf = outbox;
    // Relayed rows take the bus's one publishing path too, so `onPublished` sees them.
    this.relay = new OutboxRelay(
      outbox,
      (events) => this.publishing.publishEncoded(events),
      this.config.outbox,
      this.logger,
    ).start();
  }

  /** Whether one of the bus's event classes has `handlingKey` (`ORDER.PLACE`). */
  knowsHandlingKey(handlingKey: string): boolean {
    return this.registry.has(handlingKey);
  }

  /** A new, empty set of events for one unit of work, kept in the outbox if the bus has one. */
  openEvents(): UnitOfWorkEvents {
    return this.publishing.openEvents();
  }

  /**
   * @internal Serializes an event for the transport, with its order key if it is
   * ordered, refusing one bigger than `maxEventBytes` (`EventTooLargeError`),
   * of an unregistered class, with an invalid order key
   * (`InvalidOrderKeyError`), or ordered and delayed.
   */
  encode(event: Event, delivery?: DeliveryOptions): EncodedEvent {
    return this.publishing.encoder.encode(event, delivery);
  }

  /**
   * Publishes events now, in order, in one round trip; with `delay` or
   * `delayUntil` they are handled no earlier than that. Every event is
   * serialized first, so an unregistered class or one over `maxEventBytes`
   * fails before anything is sent.
   * Inside a unit of work use `uow.register(new SendEventOp(event))` instead,
   * which publishes only after commit.
   */
  publish(events: Event | readonly Event[], options?: DeliveryOptions): Promise<void> {
    if (this.closed) return Promise.reject(new BusClosedError('publish'));
    return this.publishing.publish(events, options);
  }

  /**
   * Adds an observer of this process's publishing and handler runs (see
   * {@link BusObserver}; the options' hooks are one already, metrics are
   * another); returns the function that removes it. Workers started before
   * see it too.
   */
  observe(observer: BusObserver): () => void {
    return this.observers.add(observer);
  }

  /**
   * Told of every publish that went through: calls `onPublished`, decoding
   * relayed rows first (`events` is `undefined` for them). Subclasses that
   * record what was published override it.
   */
  protected afterPublish(outgoing: readonly OutgoingEvent[], events: readonly Event[] | undefined): void {
    this.historyOf.published(outgoing.length);
    if (!this.observers.has('onPublished')) return;
    this.observers.notify('onPublished', events ?? this.publishing.decodeAll(outgoing));
  }

  /**
   * Publishes `factory`'s event once per tick of `when` (`{ every: ms }` or `{ cron, tz }`),
   * from one process however many schedule it: they race for each tick, one wins. Ticks fire
   * only while a worker of this bus runs in this process; a tick missed while none ran anywhere
   * is caught up when one starts (the latest only); a new schedule starts from its next tick.
   * Refused at once: `ScheduleOptionsError`, `DuplicateScheduleError`, `BusClosedError`.
   */
  schedule(name: string, when: ScheduleWhen, factory: ScheduledEventFactory): ScheduleHandle {
    if (this.closed) throw new BusClosedError('schedule');
    return this.schedules.add(name, when, factory);
  }

  /** Stops a schedule in this process; resolves to false if there was none, else once a tick under way is done. */
  unschedule(name: string): Promise<boolean> {
    return this.schedules.remove(name);
  }

  /**
   * Starts consuming in this process: drains, async handler jobs, retries,
   * ordered lanes. With the outbox on, it first checks the outbox table and
   * refuses to start without it (`OutboxNotConfiguredError`).
   */
  async startWorker(options: StartWorkerOptions = {}): Promise<RunningWorker> {
    if (this.closed) throw new BusClosedError('start a worker');
    await this.outboxOf?.check();
    const worker = await startBusWorker(
      {
        config: this.config,
        logger: this.logger,
        handlers: this.handlers,
        serializer: this.serializer,
        transport: this.transport,
        rules: this.rules,
        dataSource: this.dataSourceOf,
        orderedLanes: this.orderedLanes,
        bus: this,
        schedules: this.schedules,
        publish: (events) => this.publish(events),
        observer: this.observers,
        metricsRegistry: this.ownMetrics,
      },
      options,
      { onClosed: (closed) => this.workers.delete(closed), closeBus: () => this.close() },
    );
    this.workers.add(worker);
    this.historyOf.workerStarted();
    return worker;
  }

  /**
   * Resolves once every published event is drained and no handler job is
   * waiting, delayed or running (retries included), on any worker. Work parked
   * by a pause counts as idle: nothing runs it until resumed (see
   * `rules.parkedCount()`). Rejects after `timeoutMs` (`IdleTimeoutError`), or
   * soon with `TransportUnavailableError` while Redis cannot be reached. For
   * demos, tests and scripts; services do not wait.
   */
  async whenIdle(timeoutMs = 30_000): Promise<void> {
    if (this.closed) throw new BusClosedError('wait for the bus to be idle');
    try {
      await waitUntilIdle(this.transport, timeoutMs);
    } catch (error) {
      throw this.failure('wait for the bus to be idle', error);
    }
  }

  /**
   * The bus's history, a point a minute for the last `sinceMs` (24 h by default and at most), oldest first,
   * zero-filled, on the transport's clock (see {@link HistoryPoint}); `HistoryQueryError` for a bad `sinceMs`.
   */
  async history(query?: HistoryQuery): Promise<HistoryPoint[]> {
    if (this.closed) throw new BusClosedError('read the history');
    try {
      return await this.historyOf.read(query);
    } catch (error) {
      throw this.failure('read the history', error);
    }
  }

  /** Events published and not yet drained, ordered ones included. */
  backlog(): Promise<number> {
    if (this.closed) return Promise.reject(new BusClosedError('read the backlog'));
    return backlogOf(this.transport);
  }

  /**
   * A snapshot of the bus's work, as plain JSON: backlog, delayed events,
   * handler jobs, parked work, dead letters, halted order keys, pauses and
   * blocks, the same per handler, and the outbox. On Redis it covers every
   * process of the bus; it reads every job and dead letter, so call it for
   * operations (`commitbus status`, dashboards), not on a hot path.
   */
  async status(): Promise<BusStatus> {
    if (this.closed) throw new BusClosedError('read the bus status');
    try {
      return await readBusStatus({
        config: this.config,
        transport: this.transport,
        handlerNames: this.handlers.all().map((h) => h.name),
        halted: () => this.ordering.halted(),
        rebased: (limit) => this.ordering.rebased(limit),
        outbox: this.outboxOf,
        pausedQueues: () => readPausedQueues(this.transport, 'read the bus status'),
      });
    } catch (error) {
      throw this.failure('read the bus status', error);
    }
  }

  /** An error of an operation across ports as the transport names it (an outage: its server, what to check). */
  private failure(action: string, error: unknown): unknown {
    return this.transport.failure?.(action, error) ?? error;
  }

  /**
   * Stops the schedules (a tick under way publishes first) and this process's
   * workers, stops the outbox relay, deletes the outbox rows of events already
   * published, then closes the transport's connections. Close the bus before
   * destroying its DataSource.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.schedules.close();
    await Promise.all([...this.workers].map((w) => w.close()));
    await this.relay?.stop();
    await this.publishing.settled();
    await this.historyOf.close();
    await this.outboxOf?.flush();
    await this.routerStores?.close();
    await this.transport.close();
  }
}

/** Creates an event bus on `options.transport`, else on the embedded default (in-process). */
export function createEventBus(options: EventBusOptions): EventBus {
  return new EventBus(options);
}
