import type { Event } from '../bus/event.js';
import { EventBus, type EventBusOptions, type RunningWorker } from '../bus/event-bus.js';
import { silentLogger } from '../bus/logger.js';
import { MemoryTransport } from '../bus/memory/memory.transport.js';
import type { OutgoingEvent } from '../bus/outgoing-event.js';
import type { CommitbusConfig } from '../config/config.js';
import { resolveConfig } from '../config/resolve-config.js';
import type { Handler } from '../handlers/handler.js';

/** Options of {@link createTestBus}. */
export interface TestBusOptions extends EventBusOptions {
  /**
   * Start an in-process worker, so published events run their handlers.
   * `false` only records what was published.
   * @defaultValue `true`
   */
  runHandlers?: boolean;
}

/**
 * An in-process bus for unit tests of services and handlers: records what was
 * published, runs handlers in this process, and waits for all of it.
 */
export class TestEventBus extends EventBus {
  /** Every event published, in order, decoded as a worker would see it. */
  readonly published: Event[] = [];
  private worker: RunningWorker | undefined;
  private readonly memory: MemoryTransport;

  constructor(options: TestBusOptions) {
    const config: Partial<CommitbusConfig> = {
      scheduleEveryMs: 0,
      defaultBackoff: { type: 'fixed', delayMs: 0 },
      ...options.config,
      transport: 'memory',
    };
    const resolved = { ...options, config, logger: options.logger ?? silentLogger };
    const memory = new MemoryTransport(resolveConfig(config));
    super(resolved, memory);
    this.memory = memory;
  }

  /** Starts the in-process worker (done by {@link createTestBus} unless `runHandlers` is false). */
  async start(): Promise<void> {
    this.worker ??= await this.startWorker({ handleSignals: false });
  }

  /** @internal Every publish (direct, after commit, relayed) ends here: record it. */
  override async publishEncoded(outgoing: readonly OutgoingEvent[], events: readonly Event[]): Promise<void> {
    await super.publishEncoded(outgoing, events);
    for (const { payload } of outgoing) this.published.push(this.serializer.deserialize(payload));
  }

  /** The published events of one class, in order. */
  publishedOf<E extends Event>(cls: abstract new (...args: never[]) => E): E[] {
    return this.published.filter((e): e is E => e instanceof cls);
  }

  /** Waits until every published event is handled and every handler job (with retries) is done. */
  async settle(): Promise<void> {
    if (this.worker === undefined) {
      throw new Error('this test bus runs no handlers (runHandlers: false); call start() first');
    }
    await this.memory.whenIdle();
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
