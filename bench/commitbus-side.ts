import {
  type CommitbusOptions,
  createEventBus,
  type DrainResult,
  defineHandler,
  Event,
  type EventBus,
  EventType,
  type RunningWorker,
} from '../src/index.js';
import { redisTransport } from '../src/transports/redis/index.js';
import { type BenchTarget, HandledTally, nowMs } from './load.js';

/** The benchmark's event: carries its send time. */
@EventType('BENCH')
export class BenchEvent extends Event {
  /** `nowMs()` when it was published. */
  sentAt = 0;
}

/** commitbus on the Redis transport (BullMQ jobs), with one sync no-op handler, worker in this process. */
export class CommitbusSide implements BenchTarget {
  readonly label = 'commitbus';
  readonly tally = new HandledTally();
  /** Events per `bus.publish`, as a unit of work publishes after commit. */
  readonly unitSize = 10;
  private drains = 0;
  private drained = 0;
  private readonly bus: EventBus;
  private worker: RunningWorker | undefined;

  constructor(config: CommitbusOptions) {
    const noop = defineHandler<BenchEvent>('noop', (event) => this.tally.record(event.sentAt));
    this.bus = createEventBus({
      events: [BenchEvent],
      handlers: { BENCH: [[noop, true]] },
      config,
      // On the Redis the config names.
      transport: redisTransport(),
    });
  }

  async start(): Promise<void> {
    this.worker = await this.bus.startWorker({ handleSignals: false, onDrain: (r) => this.onDrain(r) });
  }

  send(count: number): Promise<void> {
    return this.bus.publish(Array.from({ length: count }, () => BenchEvent.create({ sentAt: nowMs() })));
  }

  /** Drain jobs that finished since the last call. */
  describeRun(): string {
    const text = `${this.drains} drain jobs finished, ${this.drained} events in them`;
    this.drains = 0;
    this.drained = 0;
    return text;
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.bus.close();
  }

  private onDrain(result: DrainResult): void {
    this.drains++;
    this.drained += result.handled;
  }
}
