import { EventBus } from '../bus/event-bus.js';
import type { EventBusOptions, RunningWorker } from '../bus/event-bus-options.js';
import { warnDeprecatedOptions } from '../config/deprecation-warnings.js';
import { layerOptions } from '../config/normalize-options.js';
import { resolveOptions } from '../config/resolve-options.js';
import type { Event } from '../events/event.js';
import type { OutgoingEvent } from '../events/outgoing-event.js';
import type { Handler } from '../handlers/handler.js';
import { silentLogger } from '../support/logger.js';
import { sqliteTransport } from '../transports/sql/sqlite-transport.js';
import { TestBusNotStartedError } from './errors/test-bus-not-started.error.js';

// Longer than any test runner's timeout: a test that never settles fails there, naming the test.
const SETTLE_TIMEOUT_MS = 3_600_000;

/** How often a test bus's worker looks for delayed work come due, in milliseconds. */
const TEST_POLL_MS = 20;

/** A test bus's options: a bus's, without `transport` (it is always SQLite in this process's memory). */
export interface TestBusOptions extends Omit<EventBusOptions, 'transport'> {
  /**
   * Start an in-process worker, so published events run their handlers.
   * `false` only records what was published.
   * @defaultValue `true`
   */
  runHandlers?: boolean;
}

/**
 * A bus for unit tests of services and handlers, on SQLite in this
 * process's memory (the SQL transport, through the same statements as
 * production): records what was published, runs handlers in this process,
 * and waits for all of it.
 */
export class TestEventBus extends EventBus {
  /** Every event published, in order, decoded as a worker would see it. */
  readonly published: Event[] = [];
  private worker: RunningWorker | undefined;

  constructor(options: TestBusOptions) {
    const logger = options.logger ?? silentLogger;
    const config = layerOptions(
      { drains: { scheduleEveryMs: 0 }, handlers: { backoff: { type: 'fixed', delayMs: 0 } } },
      options.config,
      warnDeprecatedOptions(logger),
    );
    const transport = sqliteTransport({ pollMs: TEST_POLL_MS }).open({
      config: resolveOptions(config),
      logger,
    });
    super({ ...options, config, logger }, transport);
  }

  /** Starts the in-process worker (done by {@link createTestBus} unless `runHandlers` is false). */
  async start(): Promise<void> {
    this.worker ??= await this.startWorker({ handleSignals: false });
  }

  /** Every publish (direct, after commit, re-driven, relayed) ends here: record it. */
  protected override afterPublish(
    outgoing: readonly OutgoingEvent[],
    events: readonly Event[] | undefined,
  ): void {
    for (const { payload } of outgoing) this.published.push(this.serializer.deserialize(payload));
    super.afterPublish(outgoing, events);
  }

  /** The published events of one class, in order. */
  publishedOf<E extends Event>(cls: abstract new (...args: never[]) => E): E[] {
    return this.published.filter((e): e is E => e instanceof cls);
  }

  /** Waits until every published event is handled and every handler job (with retries) is done. */
  async settle(): Promise<void> {
    if (this.worker === undefined) {
      throw new TestBusNotStartedError();
    }
    await this.whenIdle(SETTLE_TIMEOUT_MS);
  }

  /**
   * Calls one handler with one event, as a worker would (attempt 1 unless
   * given). Its `ctx.signal` never aborts: no timeout applies here.
   */
  async runHandler<E extends Event>(handler: Handler<E>, event: E, attempt = 1): Promise<void> {
    await handler.handle(event, {
      handlerName: handler.name,
      attempt,
      signal: new AbortController().signal,
      publish: (events) => this.publish(events),
    });
  }

  /** Forgets the recorded events. */
  clear(): void {
    this.published.length = 0;
  }
}

/** Creates a {@link TestEventBus} and starts its worker (unless `runHandlers: false`). */
export async function createTestBus(options: TestBusOptions): Promise<TestEventBus> {
  const bus = new TestEventBus(options);
  if (options.runHandlers ?? true) await bus.start();
  return bus;
}
