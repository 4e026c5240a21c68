import type { Transport } from '../../src/bus/transport.js';
import { layerOptions } from '../../src/config/normalize-options.js';
import {
  type CommitbusOptions,
  EventBus,
  type EventBusOptions,
  type RunningWorker,
  type StartWorkerOptions,
  silentLogger,
} from '../../src/index.js';

/** What {@link fastConfig} lays `overrides` over. */
const FAST: CommitbusOptions = {
  shutdownTimeoutMs: 5_000,
  drains: { scheduleEveryMs: 0, blockMs: 50 },
  handlers: { backoff: { type: 'fixed', delayMs: 10 } },
};

/**
 * Options for a fast test bus: small backoffs and blocking reads, no
 * scheduler, with `overrides` laid over them group by group (the flat
 * names tests still use, `prefix` above all, translated without a warning).
 * It names no Redis: a bus on Redis gets `transport: testRedis()`.
 */
export function fastConfig(overrides: CommitbusOptions): CommitbusOptions {
  return layerOptions(FAST, overrides, () => undefined);
}

/** Creates buses with workers and closes all of them (call `closeAll` in `afterEach`). */
export class Buses {
  private readonly open: EventBus[] = [];

  /** A bus without a worker (a publisher); on `transport` if given, else on the configured one. */
  create(options: EventBusOptions, transport?: Transport): EventBus {
    const bus = new EventBus({ logger: silentLogger, ...options }, transport);
    this.open.push(bus);
    return bus;
  }

  /** A bus with a worker started in this process. */
  async start(
    options: EventBusOptions,
    worker: Omit<StartWorkerOptions, 'handleSignals'> = {},
    transport?: Transport,
  ): Promise<{ bus: EventBus; worker: RunningWorker }> {
    const bus = this.create(options, transport);
    return { bus, worker: await bus.startWorker({ ...worker, handleSignals: false }) };
  }

  /** Closes every bus created so far (workers first, then connections). */
  async closeAll(): Promise<void> {
    const buses = this.open.splice(0);
    await Promise.all(buses.map((bus) => bus.close()));
  }
}
