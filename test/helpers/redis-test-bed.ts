import { afterAll, afterEach } from 'vitest';
import { Buses } from './buses.js';
import type { RedisClient } from './redis.js';
import { deleteKeys, openRedis, testPrefix } from './redis.js';

/** What a test file on Redis shares: its own prefix, a connection to inspect with, its buses. */
export interface RedisTestBed {
  /** The file's key prefix: `cb-test-<name>-<8 hex>`. */
  readonly prefix: string;
  /** A plain connection for looking at what the buses left. */
  readonly redis: RedisClient;
  /** Buses created by the file's tests, closed after each test. */
  readonly buses: Buses;
}

/**
 * Sets up a test file on Redis: a fresh prefix, a connection, and buses closed
 * after each test; after the file, every key under the prefix is deleted.
 */
export function redisTestBed(name: string): RedisTestBed {
  const bed = { prefix: testPrefix(name), redis: openRedis(), buses: new Buses() };
  afterEach(() => bed.buses.closeAll());
  afterAll(async () => {
    await deleteKeys(bed.redis, bed.prefix);
    await bed.redis.quit();
  });
  return bed;
}
