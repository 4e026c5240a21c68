import type { TransportAdapter } from '../../src/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { CLUSTER_NODES, ON_CLUSTER, REDIS_URL } from './redis.js';

/** The adapters the room tests run a bus on, by name. */
export type TransportName = 'sqlite' | 'redis';

/** Both, for `describe.each`. */
export const TRANSPORT_NAMES: readonly TransportName[] = ['sqlite', 'redis'];

/**
 * The Redis adapter on the tests' Redis: the cluster's nodes on the cluster
 * project, else `REDIS_URL`; its prefix is the bus config's unless given.
 */
export function testRedis(prefix?: string): ReturnType<typeof redisTransport> {
  return redisTransport({
    ...(ON_CLUSTER ? { cluster: CLUSTER_NODES ?? [] } : { url: REDIS_URL }),
    ...(prefix === undefined ? {} : { prefix }),
  });
}

/**
 * The adapter `name` names: {@link testRedis}, or the embedded one (SQLite
 * in this process's memory) looking for delayed work every 20 ms.
 */
export function testTransport(name: TransportName): TransportAdapter {
  return name === 'redis' ? testRedis() : sqliteTransport({ pollMs: 20 });
}
