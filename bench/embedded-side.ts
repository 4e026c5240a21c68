import {
  createEventBus,
  defineHandler,
  type EventBus,
  type RunningWorker,
  type TransportAdapter,
} from '../src/index.js';
import { BenchEvent } from './commitbus-side.js';
import { type BenchTarget, HandledTally, nowMs } from './load.js';

/**
 * commitbus on an embedded transport (the SQL one on a SQLite file, or in
 * memory), one sync no-op handler, worker in this process, publishes batched
 * (`unitSize` events a call, 100 by default).
 */
export class EmbeddedSide implements BenchTarget {
  readonly tally = new HandledTally();
  private readonly bus: EventBus;
  private worker: RunningWorker | undefined;

  constructor(
    readonly label: string,
    transport: TransportAdapter,
    /** Events per `bus.publish`: batched publishes. */
    readonly unitSize = 100,
  ) {
    const noop = defineHandler<BenchEvent>('noop', (event) => this.tally.record(event.sentAt));
    this.bus = createEventBus({
      events: [BenchEvent],
      handlers: { BENCH: [[noop, true]] },
      config: { name: `bench-${label.replace(/\W+/g, '-')}`, outbox: { enabled: false } },
      transport,
    });
  }

  async start(): Promise<void> {
    this.worker = await this.bus.startWorker({ handleSignals: false });
  }

  send(count: number): Promise<void> {
    return this.bus.publish(Array.from({ length: count }, () => BenchEvent.create({ sentAt: nowMs() })));
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.bus.close();
  }
}
