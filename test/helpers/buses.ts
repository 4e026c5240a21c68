import {
  type CommitbusConfig,
  createEventBus,
  type EventBus,
  type EventBusOptions,
  type RunningWorker,
  type StartWorkerOptions,
  silentLogger,
} from '../../src/index.js';
import { REDIS_URL } from './redis.js';

/** Config for a fast test bus: small backoffs and blocking reads, no scheduler. */
export function fastConfig(overrides: Partial<CommitbusConfig>): Partial<CommitbusConfig> {
  return {
    redisUrl: REDIS_URL,
    scheduleEveryMs: 0,
    blockMs: 50,
    defaultBackoff: { type: 'fixed', delayMs: 10 },
    shutdownTimeoutMs: 5_000,
    ...overrides,
  };
}

/** Creates buses with workers and closes all of them (call `closeAll` in `afterEach`). */
export class Buses {
  private readonly open: EventBus[] = [];

  /** A bus without a worker (a publisher). */
  create(options: EventBusOptions): EventBus {
    const bus = createEventBus({ logger: silentLogger, ...options });
    this.open.push(bus);
    return bus;
  }

  /** A bus with a worker started in this process. */
  async start(
    options: EventBusOptions,
    worker: Omit<StartWorkerOptions, 'handleSignals'> = {},
  ): Promise<{ bus: EventBus; worker: RunningWorker }> {
    const bus = this.create(options);
    return { bus, worker: await bus.startWorker({ ...worker, handleSignals: false }) };
  }

  /** Closes every bus created so far (workers first, then connections). */
  async closeAll(): Promise<void> {
    const buses = this.open.splice(0);
    await Promise.all(buses.map((bus) => bus.close()));
  }
}
