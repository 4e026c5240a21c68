/**
 * What a conformance suite shares: a key prefix of its own, a connection to
 * look at Redis with, and the transport of a fresh bus on an adapter of
 * ./adapters.ts (its own bus name each time), whose ports the suite drives.
 * Buses close after each test; the prefix's keys go after the file.
 */
import { afterAll, afterEach } from 'vitest';
import type { Transport } from '../../src/bus/transport.js';
import type { CommitbusOptions } from '../../src/config/commitbus-options.js';
import { createEventBus, type EventBus, silentLogger } from '../../src/index.js';
import { deleteKeys, openRedis, type RedisClient, testPrefix } from '../helpers/redis.js';
import type { ConformanceAdapter } from './adapters.js';

/** A suite's bed: see the module's comment. */
export interface ConformanceBed {
  /** The file's key prefix: `cb-test-<name>-<8 hex>`. */
  readonly prefix: string;
  /** A plain connection (to the cluster, on one). */
  readonly redis: RedisClient;
  /** The transport of a fresh bus on `adapter`, with `config` beside the bus's name and prefix; `name` is that bus's name. */
  open(adapter: ConformanceAdapter, config?: CommitbusOptions): { transport: Transport; name: string };
}

/**
 * Sets up a conformance suite under `cb-test-<name>-…`; with `keepBuses`, its
 * buses stay open until the file ends (for ports opened before the tests).
 */
export function conformanceBed(name: string, options: { keepBuses?: boolean } = {}): ConformanceBed {
  const prefix = testPrefix(name);
  const redis = openRedis();
  const open: EventBus[] = [];
  let n = 0;
  const closeAll = async () => {
    await Promise.all(open.splice(0).map((bus) => bus.close()));
  };
  if (options.keepBuses !== true) afterEach(closeAll);
  afterAll(async () => {
    await closeAll();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });
  return {
    prefix,
    redis,
    open: (adapter, config = {}) => {
      const busName = `${name}${++n}`;
      const bus = createEventBus({
        events: [],
        logger: silentLogger,
        transport: adapter.adapter(),
        config: { outbox: { enabled: false }, ...config, name: busName, redis: { prefix } },
      });
      open.push(bus);
      return { transport: bus.transport, name: busName };
    },
  };
}
