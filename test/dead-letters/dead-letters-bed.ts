/**
 * What the dead-letter suites (`dead-letters-*.test.ts`) share: a file's own
 * key prefix and Redis connection, the buses its tests open (closed after each
 * test), and per transport the config, buses and raw writes and reads of a test.
 */
import { afterAll, afterEach, expect } from 'vitest';
import type { Transport } from '../../src/bus/transport.js';
import { type CommitbusOptions, EventBus, type EventBusOptions, silentLogger } from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { SqlTransport } from '../../src/transports/sql/index.js';
import { fastConfig } from '../helpers/buses.js';
import {
  deadLetterKeys,
  deleteKeys,
  failedHandlerJobs,
  openRedis,
  type RedisClient,
  testPrefix,
} from '../helpers/redis.js';
import { type TransportName, testTransport } from '../helpers/transports.js';

/** A dead-letter test file's prefix, connection and open buses. */
export interface DeadLetterBed {
  /** The file's key prefix: `cb-test-<name>-<8 hex>`. */
  readonly prefix: string;
  /** A plain connection for writing and reading what the buses keep. */
  readonly redis: RedisClient;
  /** Buses to close after the current test. */
  readonly open: EventBus[];
}

/**
 * Sets up a dead-letter test file: a fresh prefix and a connection; the buses
 * in `open` are closed after each test, and every key under the prefix is
 * deleted after the file. Call it once, at the top of the file.
 */
export function deadLetterBed(name: string): DeadLetterBed {
  const bed: DeadLetterBed = { prefix: testPrefix(name), redis: openRedis(), open: [] };
  afterEach(async () => {
    await Promise.all(bed.open.splice(0).map((bus) => bus.close()));
  });
  afterAll(async () => {
    await deleteKeys(bed.redis, bed.prefix);
    await bed.redis.quit();
  });
  return bed;
}

/** The helpers of a `describe.each(TRANSPORT_NAMES)` block, on one transport. */
export interface OnTransport {
  /** A fast test config; the bus name is `<transport>-<name>`. */
  config(name: string, overrides?: CommitbusOptions): CommitbusOptions;
  /** A bus on `shared` (SQLite in memory: buses of one "deployment history" share one transport) or its own. */
  bus(options: EventBusOptions, shared?: Transport): EventBus;
  /** A bus with its worker started. */
  started(options: EventBusOptions): Promise<EventBus>;
  /** Writes payloads straight into the bus's event log, bypassing the serializer. */
  pushRaw(target: EventBus, payloads: string[]): Promise<void>;
  /** What is left in Redis: nothing in BullMQ's failed sets, and how many dead-letter keys. */
  expectLeftInRedis(target: EventBus, letterKeys: number): Promise<void>;
}

/** The helpers of {@link OnTransport} for `transport`, under `bed`'s prefix, its buses closed after each test. */
export function onTransport(bed: DeadLetterBed, transport: TransportName): OnTransport {
  const { prefix, redis, open } = bed;
  const config = (name: string, overrides: CommitbusOptions = {}) =>
    fastConfig({ prefix, name: `${transport}-${name}`, ...overrides });

  function bus(options: EventBusOptions, shared?: Transport): EventBus {
    const created = new EventBus(
      { logger: silentLogger, transport: testTransport(transport), ...options },
      shared,
    );
    open.push(created);
    return created;
  }

  async function started(options: EventBusOptions): Promise<EventBus> {
    const b = bus(options);
    await b.startWorker({ handleSignals: false });
    return b;
  }

  async function pushRaw(target: EventBus, payloads: string[]): Promise<void> {
    if (target.transport instanceof SqlTransport) {
      await target.transport.publish(
        payloads.map((payload, i) => ({ id: `raw-${Date.now()}-${i}`, payload })),
      );
      return;
    }
    for (const payload of payloads) await redis.xadd(queueNamesOf(target.config).stream, '*', 'p', payload);
  }

  async function expectLeftInRedis(target: EventBus, letterKeys: number): Promise<void> {
    if (transport !== 'redis') return;
    expect(await failedHandlerJobs(redis, target.config)).toBe(0);
    expect(await deadLetterKeys(redis, target.config)).toBe(letterKeys);
  }

  return { config, bus, started, pushRaw, expectLeftInRedis };
}
