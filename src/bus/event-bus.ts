import { setTimeout as sleep } from 'node:timers/promises';
import type { CommitbusConfig } from '../config/config.js';
import { resolveConfig } from '../config/resolve-config.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import { Dispatcher } from '../handlers/dispatcher.js';
import type { DrainResult } from '../handlers/drain.js';
import type { EventHandlersConfig } from '../handlers/event-handlers-config.js';
import { HandlerTable } from '../handlers/handler-table.js';
import { BullmqTransport } from './bullmq/bullmq.transport.js';
import type { ConcreteEventClass, Event } from './event.js';
import { EventRegistry } from './event-registry.js';
import { EventSerializer } from './event-serializer.js';
import { consoleLogger, type Logger } from './logger.js';
import { MemoryTransport } from './memory/memory.transport.js';
import type { Transport, TransportWorker } from './transport.js';

const IDLE_POLL_MS = 10;

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
  /** Resolves once the worker has closed, by `close()` or a signal. */
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
  /** Work given up after its last attempt: list, inspect, re-drive, purge. */
  readonly deadLetters: DeadLetters;
  private readonly logger: Logger;
  private readonly onPublished: ((events: readonly Event[]) => void) | undefined;
  private readonly workers = new Set<RunningWorker>();

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
      publish: (events) => this.publish(events),
    });
  }

  /**
   * Publishes events now, in order, in one round trip. Every event is
   * serialized first, so an unregistered class fails before anything is sent.
   * Inside a unit of work use `uow.register(new SendEventOp(event))` instead,
   * which publishes only after commit.
   */
  async publish(events: Event | readonly Event[]): Promise<void> {
    const list: readonly Event[] = Array.isArray(events) ? events : [events as Event];
    if (list.length === 0) return;
    const payloads = list.map((event) => this.serializer.serialize(event).payload);
    await this.transport.publish(payloads);
    this.onPublished?.(list);
  }

  /** Starts consuming in this process: drains, async handler jobs, retries. */
  async startWorker(options: StartWorkerOptions = {}): Promise<RunningWorker> {
    const dispatcher = new Dispatcher(
      this.handlers,
      this.serializer,
      (events) => this.publish(events),
      this.logger,
    );
    const inner: TransportWorker = await this.transport.startWorker({
      dispatcher,
      config: this.config,
      logger: this.logger,
      ...(options.onDrain ? { onDrain: options.onDrain } : {}),
    });
    let closing: Promise<void> | undefined;
    let resolveStopped: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      resolveStopped = resolve;
    });
    const onSignal = (signal: NodeJS.Signals) => {
      this.logger.info({ signal }, 'shutting down: finishing in-flight work');
      worker
        .close()
        .then(() => this.close())
        .catch((error: unknown) => this.logger.error({ error: String(error) }, 'shutdown failed'));
    };
    const worker: RunningWorker = {
      stopped,
      close: () => {
        closing ??= (async () => {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          await inner.close(this.config.shutdownTimeoutMs);
          this.workers.delete(worker);
          resolveStopped();
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
   * waiting, delayed or running (retries included), on any worker. Rejects
   * after `timeoutMs`. For demos, tests and scripts; services do not wait.
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

  /** Closes this process's workers, then the transport's connections. */
  async close(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.close()));
    await this.transport.close();
  }
}

/** Creates an event bus on the configured transport (`memory` unless told otherwise). */
export function createEventBus(options: EventBusOptions): EventBus {
  return new EventBus(options);
}
