import { Redis } from 'ioredis';
import {
  createEventBus,
  defineHandler,
  Event,
  type EventBus,
  EventType,
  type RunningWorker,
} from '../src/index.js';
import { redisTransport } from '../src/transports/redis/index.js';
import { type BenchTarget, HandledTally, measureThroughput, nowMs } from './load.js';
import { deleteKeys } from './redis-keys.js';
import { median } from './stats.js';

/** The unordered event of the ordering comparison: the same fields as {@link KeyedBenchEvent}. */
@EventType('BENCH_ORDERING.FREE')
export class FreeBenchEvent extends Event {
  /** `nowMs()` when it was published. */
  sentAt = 0;
  /** Not an order key here; there for the same shape as the ordered class. */
  key = 0;
}

/** The ordered event: ordered per `key`. */
@EventType('BENCH_ORDERING.KEYED', { orderBy: (e: KeyedBenchEvent) => `bench:${e.key}` })
export class KeyedBenchEvent extends Event {
  /** `nowMs()` when it was published. */
  sentAt = 0;
  /** Its order key is `bench:<key>`. */
  key = 0;
}

/** How the ordering throughput is measured. */
export interface OrderingThroughputOptions {
  redisUrl: string;
  /** Redis prefix of its own; every key under it is deleted at the end. */
  prefix: string;
  /** Events per run of the unordered and the spread-over-keys cases. */
  events: number;
  /** Events per run of the hot-key case (one key: one event per round trip, far slower). */
  hotKeyEvents: number;
  /** Distinct order keys of the spread case (round-robin). */
  keys: number;
  /** `bus.publish` calls in flight, of 10 events each. */
  inFlight: number;
  /** Runs per case, rotating which case goes first; the median is kept. */
  runs: number;
  /** Events per case before measuring. */
  warmup: number;
  /** Called after each measured run. */
  onRun?: (run: number, label: string, perS: number) => void;
}

/** Events per second of each case (medians of the runs). */
export interface OrderingThroughput {
  readonly unorderedPerS: number;
  /** Ordered, spread over `keys` keys. */
  readonly orderedPerS: number;
  /** Ordered, every event on one key. */
  readonly hotKeyPerS: number;
  /** `orderedPerS / unorderedPerS`. */
  readonly ratio: number;
}

/** One case: `bus.publish` of 10 events of one class, each with the key `keyOf(n)` for the n-th event. */
class PublishSide implements BenchTarget {
  readonly unitSize = 10;
  private sent = 0;

  constructor(
    readonly label: string,
    readonly tally: HandledTally,
    private readonly bus: EventBus,
    private readonly make: (sentAt: number, key: number) => Event,
    private readonly keyOf: (n: number) => number,
  ) {}

  send(count: number): Promise<void> {
    return this.bus.publish(Array.from({ length: count }, () => this.make(nowMs(), this.keyOf(this.sent++))));
  }

  async close(): Promise<void> {}
}

/**
 * Throughput of ordered events against unordered ones, in one process on the
 * Redis transport. One bus (no DataSource, so ordered events take their
 * positions in Redis, at publish), a sync no-op handler per class as on the
 * commitbus side of the main comparison, and a worker in this process with the
 * default config (`orderedConcurrency` 64). Each case is the main comparison's
 * closed loop (`measureThroughput`: `bus.publish` of 10 events, `inFlight` at
 * a time, until every event's handler ran):
 *
 * - **unordered**: {@link FreeBenchEvent}, through the stream and drains;
 * - **ordered**: {@link KeyedBenchEvent}, round-robin over `keys` keys;
 * - **hot key**: {@link KeyedBenchEvent}, every event on one key.
 *
 * Runs rotate the cases' order, so load from elsewhere on the machine does
 * not fall on one case only. The ordered handler also checks that each event's
 * `prev` is the `seq` it saw last for its key; the measurement fails if one is
 * not.
 */
export async function measureOrderingThroughput(
  options: OrderingThroughputOptions,
): Promise<OrderingThroughput> {
  const freeTally = new HandledTally();
  const keyedTally = new HandledTally();
  const lastSeq = new Map<string, number>();
  let outOfOrder = 0;
  const free = defineHandler<FreeBenchEvent>('noop-free', (event) => freeTally.record(event.sentAt));
  const keyed = defineHandler<KeyedBenchEvent>('noop-keyed', (event) => {
    const ordering = event.ordering;
    if (ordering === undefined || ordering.prev !== lastSeq.get(ordering.key)) outOfOrder++;
    if (ordering !== undefined) lastSeq.set(ordering.key, ordering.seq);
    keyedTally.record(event.sentAt);
  });
  const bus = createEventBus({
    events: [FreeBenchEvent, KeyedBenchEvent],
    handlers: { 'BENCH_ORDERING.FREE': [[free, true]], 'BENCH_ORDERING.KEYED': [[keyed, true]] },
    config: { prefix: options.prefix },
    transport: redisTransport({ url: options.redisUrl }),
  });
  const byKey = (n: number) => n % options.keys;
  const unordered = new PublishSide(
    'unordered',
    freeTally,
    bus,
    (sentAt, key) => FreeBenchEvent.create({ sentAt, key }),
    byKey,
  );
  const ordered = new PublishSide(
    `ordered, ${options.keys} keys`,
    keyedTally,
    bus,
    (sentAt, key) => KeyedBenchEvent.create({ sentAt, key }),
    byKey,
  );
  // A key of its own, none of the spread case's.
  const hot = new PublishSide(
    'ordered, 1 key',
    keyedTally,
    bus,
    (sentAt, key) => KeyedBenchEvent.create({ sentAt, key }),
    () => options.keys,
  );
  const cases: readonly (readonly [PublishSide, number])[] = [
    [unordered, options.events],
    [ordered, options.events],
    [hot, options.hotKeyEvents],
  ];
  const runs = new Map<PublishSide, number[]>(cases.map(([side]) => [side, []]));
  const admin = new Redis(options.redisUrl);
  let worker: RunningWorker | undefined;
  try {
    worker = await bus.startWorker({ handleSignals: false });
    for (const [side, events] of cases) {
      await measureThroughput(side, Math.min(events, options.warmup), options.inFlight);
    }
    for (let run = 0; run < options.runs; run++) {
      // Rotate: ABC, BCA, CAB, ...
      for (let i = 0; i < cases.length; i++) {
        const [side, events] = cases[(i + run) % cases.length] as readonly [PublishSide, number];
        const perS = await measureThroughput(side, events, options.inFlight);
        runs.get(side)?.push(perS);
        options.onRun?.(run + 1, side.label, perS);
      }
    }
    if (outOfOrder > 0) {
      throw new Error(
        `ordering bench: ${outOfOrder} ordered events had a prev that was not their key's last seq`,
      );
    }
    const unorderedPerS = median(runs.get(unordered) ?? []);
    const orderedPerS = median(runs.get(ordered) ?? []);
    return {
      unorderedPerS,
      orderedPerS,
      hotKeyPerS: median(runs.get(hot) ?? []),
      ratio: orderedPerS / unorderedPerS,
    };
  } finally {
    await worker?.close();
    await bus.close();
    await deleteKeys(admin, options.prefix);
    await admin.quit();
  }
}
