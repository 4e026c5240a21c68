import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import type { CommitbusConfig } from '../config/config.js';
import { resolveConfig } from '../config/resolve-config.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import { Dispatcher } from '../handlers/dispatcher.js';
import type { DrainResult } from '../handlers/drain.js';
import type { EventHandlersConfig } from '../handlers/event-handlers-config.js';
import { HandlerTable } from '../handlers/handler-table.js';
import { IdempotencyNotConfiguredError } from '../idempotency/idempotency-not-configured.error.js';
import { IdempotentRunner } from '../idempotency/idempotent-runner.js';
import { syncLane } from '../ordering/lane.js';
import { LaneRunner } from '../ordering/lane-runner.js';
import { checkOrderKey } from '../ordering/order-key.js';
import { OrderedConsumer } from '../ordering/ordered-consumer.js';
import { OrderedKeys } from '../ordering/ordered-keys.js';
import { Outbox } from '../outbox/outbox.js';
import { OutboxRelay } from '../outbox/outbox-relay.js';
import { KnownTargets } from '../scheduling/known-targets.js';
import { SchedulingRules } from '../scheduling/scheduling-rules.js';
import { PostCommitEvents } from '../uow/post-commit-events.js';
import { withTransactionGate } from '../uow/transaction-gate.js';
import { BullmqTransport } from './bullmq/bullmq.transport.js';
import { type DeliveryOptions, deliverAtOf } from './delivery-options.js';
import { EventTooLargeError } from './errors/event-too-large.error.js';
import type { ConcreteEventClass, Event } from './event.js';
import { EventRegistry } from './event-registry.js';
import { EventSerializer } from './event-serializer.js';
import { type EventClass, orderingPolicyOf } from './event-type.decorator.js';
import { consoleLogger, type Logger } from './logger.js';
import { MemoryTransport } from './memory/memory.transport.js';
import type { OutgoingEvent } from './outgoing-event.js';
import { PeriodicTask } from './periodic-task.js';
import type { SerializedEvent } from './serialized-event.js';
import type { Transport, TransportWorker } from './transport.js';

const IDLE_POLL_MS = 10;
const RELEASE_BATCH = 1_000;

/** What `createEventBus` takes. */
export interface EventBusOptions {
  /** Every event class this bus may publish or handle. */
  events: Iterable<ConcreteEventClass>;
  /** `EVENT_HANDLERS`: handling key to ordered handler entries. Validated at construction. */
  handlers?: EventHandlersConfig;
  /** Options; anything left out takes its default (see `DEFAULT_CONFIG`). */
  config?: Partial<CommitbusConfig>;
  /**
   * Where commitbus logs (a pino logger fits).
   * @defaultValue warnings and errors as JSON lines on stderr
   */
  logger?: Logger;
  /**
   * The TypeORM DataSource your units of work run on. With it (and
   * `config.outbox`, on by default) events are kept in its `commitbus_outbox`
   * table in the same transaction, and this process relays any a crashed
   * publisher left. Add `COMMITBUS_ENTITIES` to its entities.
   */
  dataSource?: DataSource;
  /** Called after events were published (for logging or metrics). */
  onPublished?: (events: readonly Event[]) => void;
}

/** Options of {@link EventBus.startWorker}. */
export interface StartWorkerOptions {
  /**
   * On SIGINT/SIGTERM: stop taking work, finish in-flight work (up to
   * `shutdownTimeoutMs`), close the bus.
   * @defaultValue `true`
   */
  handleSignals?: boolean;
  /** Called after each drain job with what it did. */
  onDrain?: (result: DrainResult) => void;
}

/** A worker running in this process. */
export interface RunningWorker {
  /** Stops taking work and waits for in-flight work (up to `shutdownTimeoutMs`). */
  close(): Promise<void>;
  /** Resolves once the worker has closed by `close()`, or, after SIGINT/SIGTERM, once the whole bus has closed. */
  readonly stopped: Promise<void>;
}

/**
 * The event bus: publishes events and runs workers that hand them to the
 * handlers in `EVENT_HANDLERS`.
 */
export class EventBus {
  /** The resolved configuration. */
  readonly config: CommitbusConfig;
  /** The known event classes. */
  readonly registry: EventRegistry;
  /** Encodes and decodes events. */
  readonly serializer: EventSerializer;
  /** The validated handler configuration. */
  readonly handlers: HandlerTable;
  /** Where events travel. */
  readonly transport: Transport;
  /** Pause, resume, block and unblock handlers, from any process of the bus. */
  readonly rules: SchedulingRules;
  /** Work given up after its last attempt: list, inspect, re-drive, purge. */
  readonly deadLetters: DeadLetters;
  /** Order keys halted by a handler that gave up: list, re-drive, skip. */
  readonly ordering: OrderedKeys;
  /** Where the bus logs. */
  readonly logger: Logger;
  private readonly onPublished: ((events: readonly Event[]) => void) | undefined;
  private readonly workers = new Set<RunningWorker>();
  private outboxOf: Outbox | undefined;
  private dataSourceOf: DataSource | undefined;
  private relay: OutboxRelay | undefined;

  constructor(options: EventBusOptions, transport?: Transport) {
    this.config = resolveConfig(options.config);
    this.logger = options.logger ?? consoleLogger;
    this.onPublished = options.onPublished;
    this.registry = new EventRegistry(options.events);
    this.serializer = new EventSerializer(this.registry);
    this.handlers = new HandlerTable(options.handlers ?? {}, this.registry, {
      attempts: this.config.defaultAttempts,
      backoff: this.config.defaultBackoff,
      timeoutMs: this.config.handlerTimeoutMs,
    });
    this.transport =
      transport ??
      (this.config.transport === 'bullmq'
        ? new BullmqTransport(this.config, this.logger)
        : new MemoryTransport(this.config));
    this.deadLetters = new DeadLetters({
      store: this.transport.deadLetters,
      handlers: this.handlers,
      serializer: this.serializer,
      enqueue: (jobs) => this.transport.enqueue(jobs),
      // A re-driven payload's id was accepted before: publish it past the dedupe window.
      publish: (events) =>
        this.publishEncoded(
          events.map((event) => ({ id: event.id, payload: this.encode(event).payload, skipDedupe: true })),
          events,
        ),
    });
    this.ordering = new OrderedKeys(this.transport.ordering);
    this.rules = new SchedulingRules(
      this.transport.rules,
      new KnownTargets(this.registry, this.handlers),
      this.config.rulesRefreshMs,
      this.logger,
    );
    if (options.dataSource !== undefined) this.useDataSource(options.dataSource);
  }

  /** The transactional outbox, when the bus has a DataSource and `config.outbox` is on. */
  get outbox(): Outbox | undefined {
    return this.outboxOf;
  }

  /** The DataSource of the outbox and of idempotent handlers' records, if any. */
  get dataSource(): DataSource | undefined {
    return this.dataSourceOf;
  }

  /**
   * Keeps this bus's outbox in `dataSource` and starts relaying rows left
   * there; called for you by `createEventBus({ dataSource })` and by the
   * first `UnitOfWorkManager` on a bus without one. Returns the outbox, or
   * `undefined` when `config.outbox` is off. A bus has one outbox: a second,
   * different DataSource is refused.
   */
  useDataSource(dataSource: DataSource): Outbox | undefined {
    if (this.dataSourceOf !== undefined && this.dataSourceOf !== dataSource) {
      throw new Error(
        'this bus already uses another DataSource for its outbox and idempotent handlers; create one bus per DataSource',
      );
    }
    this.dataSourceOf = dataSource;
    if (!this.config.outbox || this.outboxOf !== undefined) return this.outboxOf;
    const outbox = new Outbox(dataSource, this.config, this.logger);
    this.outboxOf = outbox;
    this.relay = new OutboxRelay(
      outbox,
      (events) => this.transport.publish(events),
      this.config,
      this.logger,
    ).start();
    return outbox;
  }

  /**
   * Serializes an event for the transport, with its order key if it is
   * ordered, refusing one bigger than `maxEventBytes`
   * ({@link EventTooLargeError}), of an unregistered class, with an invalid
   * order key ({@link InvalidOrderKeyError}), or ordered and delayed.
   */
  encode(event: Event, delivery?: DeliveryOptions): SerializedEvent {
    const orderKey = this.orderKeyOf(event, delivery);
    if (orderKey !== undefined && deliverAtOf(delivery) !== undefined) {
      throw new TypeError(
        `a ${event.handlingKey} event is ordered (key ${JSON.stringify(orderKey)}) and cannot be delayed: it would hold back every later event of its key; publish it without delay or without ordering`,
      );
    }
    const serialized = this.serializer.serialize(event, orderKey);
    const bytes = Buffer.byteLength(serialized.payload);
    if (bytes > this.config.maxEventBytes) {
      throw new EventTooLargeError(serialized.key, serialized.id, bytes, this.config.maxEventBytes);
    }
    return serialized;
  }

  /** The order key of an event: `delivery.orderKey`, else its class's `orderBy`, else none. */
  private orderKeyOf(event: Event, delivery: DeliveryOptions | undefined): string | undefined {
    if (delivery?.orderKey !== undefined) return checkOrderKey(delivery.orderKey, event.handlingKey);
    const policy = orderingPolicyOf(event.constructor as EventClass<Event>);
    return policy === undefined ? undefined : checkOrderKey(policy.orderBy(event), event.handlingKey);
  }

  /**
   * Publishes events now, in order, in one round trip; with `delay` or
   * `delayUntil` they are handled no earlier than that. Every event is
   * serialized first, so an unregistered class or one over `maxEventBytes`
   * fails before anything is sent.
   * Inside a unit of work use `uow.register(new SendEventOp(event))` instead,
   * which publishes only after commit.
   */
  async publish(events: Event | readonly Event[], options?: DeliveryOptions): Promise<void> {
    const list: readonly Event[] = Array.isArray(events) ? events : [events as Event];
    if (list.length === 0) return;
    const outbox = this.outboxOf;
    if (outbox !== undefined && list.some((event) => this.orderKeyOf(event, options) !== undefined)) {
      // Ordered events take their positions in a transaction, like a unit of work's (which encodes them).
      await this.publishThroughOutbox(outbox, list, options);
      return;
    }
    const deliverAt = deliverAtOf(options);
    const encoded = list.map((event) => this.encode(event, options));
    const outgoing = encoded.map(({ id, payload, orderKey }): OutgoingEvent => {
      if (orderKey !== undefined) return { id, payload, lane: syncLane(orderKey) };
      return deliverAt === undefined ? { id, payload } : { id, payload, deliverAt };
    });
    await this.publishEncoded(outgoing, list);
  }

  private async publishThroughOutbox(
    outbox: Outbox,
    events: readonly Event[],
    options: DeliveryOptions | undefined,
  ): Promise<void> {
    const batch = new PostCommitEvents(this, outbox);
    for (const event of events) batch.add(event, options);
    const { dataSource } = outbox;
    await withTransactionGate(dataSource, () =>
      dataSource.transaction((manager) => batch.beforeCommit(manager)),
    );
    await batch.flush();
  }

  /** @internal Publishes events already encoded with {@link EventBus.encode}. */
  async publishEncoded(outgoing: readonly OutgoingEvent[], events: readonly Event[]): Promise<void> {
    await this.transport.publish(outgoing);
    this.onPublished?.(events);
  }

  /** Starts consuming in this process: drains, async handler jobs, retries. */
  async startWorker(options: StartWorkerOptions = {}): Promise<RunningWorker> {
    const dataSource = this.dataSourceOf;
    const idempotent = this.handlers.all().filter((h) => h.idempotent);
    if (idempotent.length > 0 && dataSource === undefined) {
      throw new IdempotencyNotConfiguredError(
        idempotent.map((h) => h.name).join(', '),
        'the bus has no dataSource',
      );
    }
    const idempotency = dataSource === undefined ? undefined : new IdempotentRunner(dataSource, this);
    // The worker's copy of the scheduling rules, loaded before it takes any work.
    const gate = await this.rules.openGate();
    const dispatcher = new Dispatcher(
      this.handlers,
      this.serializer,
      (events) => this.publish(events),
      this.logger,
      gate,
      idempotency,
    );
    const inner: TransportWorker = await this.transport
      .startWorker({
        dispatcher,
        config: this.config,
        logger: this.logger,
        ...(options.onDrain ? { onDrain: options.onDrain } : {}),
      })
      .catch(async (error: unknown) => {
        await gate.close();
        throw error;
      });
    const lanes = this.transport.workerOrdering();
    const ordered = await new OrderedConsumer({
      store: lanes.store,
      runner: new LaneRunner({
        dispatcher,
        deadLetters: this.transport.deadLetters,
        policyOf: (event) =>
          orderingPolicyOf(event.constructor as EventClass<Event>)?.afterLastAttempt ?? 'halt',
        pauseRecheckMs: this.config.rulesRefreshMs,
        logger: this.logger,
      }),
      concurrency: this.config.orderedConcurrency,
      leaseMs: this.config.lockDurationMs,
      maintainEveryMs: this.config.delayedPollMs,
      blockMs: this.config.blockMs,
      logger: this.logger,
    })
      .start()
      .catch(async (error: unknown) => {
        lanes.close();
        await inner.close(0);
        await gate.close();
        throw error;
      });
    const releaser = new PeriodicTask(
      'delayed-event release',
      this.config.delayedPollMs,
      async () => {
        while ((await this.transport.releaseDue(RELEASE_BATCH)) >= RELEASE_BATCH);
      },
      this.logger,
    ).start();
    const retention = this.config.handledRetentionMs;
    const cleanup =
      idempotency !== undefined && idempotent.length > 0
        ? new PeriodicTask(
            'idempotency record cleanup',
            Math.min(Math.ceil(retention / 10), 3_600_000),
            () => idempotency.forgetOlderThan(retention),
            this.logger,
          ).start()
        : undefined;
    let closing: Promise<void> | undefined;
    let resolveStopped: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      resolveStopped = resolve;
    });
    let bySignal = false;
    const onSignal = (signal: NodeJS.Signals) => {
      this.logger.info({ signal }, 'shutting down: finishing in-flight work');
      bySignal = true;
      // `stopped` resolves once the whole bus is closed, so the caller may destroy the DataSource then.
      worker
        .close()
        .then(() => this.close())
        .catch((error: unknown) => this.logger.error({ error: String(error) }, 'shutdown failed'))
        .finally(resolveStopped);
    };
    const worker: RunningWorker = {
      stopped,
      close: () => {
        closing ??= (async () => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          await Promise.all([releaser.stop(), cleanup?.stop()]);
          await Promise.all([
            inner.close(this.config.shutdownTimeoutMs),
            ordered.close(this.config.shutdownTimeoutMs),
          ]);
          lanes.close();
          await gate.close();
          this.workers.delete(worker);
          if (!bySignal) resolveStopped();
        })();
        return closing;
      },
    };
    if (options.handleSignals ?? true) {
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    }
    this.workers.add(worker);
    return worker;
  }

  /**
   * Resolves once every published event is drained and no handler job is
   * waiting, delayed or running (retries included), on any worker. Work parked
   * by a pause counts as idle: nothing runs it until resumed (see
   * `rules.parkedCount()`). Rejects after `timeoutMs`. For demos, tests and
   * scripts; services do not wait.
   */
  async whenIdle(timeoutMs = 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the bus was not idle after ${timeoutMs} ms: is a worker running?`)),
        timeoutMs,
      );
    });
    let waiting = true;
    const poll = async () => {
      while (waiting && !(await this.transport.isIdle())) await sleep(IDLE_POLL_MS);
    };
    try {
      await Promise.race([this.transport.whenIdle?.() ?? poll(), timeout]);
    } finally {
      waiting = false;
      clearTimeout(timer);
    }
  }

  /** Events published and not yet drained. */
  backlog(): Promise<number> {
    return this.transport.backlog();
  }

  /**
   * Closes this process's workers, stops the outbox relay, deletes the outbox
   * rows of events already published, then closes the transport's connections.
   * Close the bus before destroying its DataSource.
   */
  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.close()));
    await this.relay?.stop();
    await this.outboxOf?.flush();
    await this.transport.close();
  }
}

/** Creates an event bus on the configured transport (`memory` unless told otherwise). */
export function createEventBus(options: EventBusOptions): EventBus {
  return new EventBus(options);
}
