import type { TransportAdapter } from '../../src/index.js';
import { memoryTransport } from '../../src/transports/memory/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { CLUSTER_NODES, ON_CLUSTER, REDIS_URL } from './redis.js';

/** The adapters the room tests run a bus on, by name. */
export type TransportName = 'memory' | 'redis';

/** Both, for `describe.each`. */
export const TRANSPORT_NAMES: readonly TransportName[] = ['memory', 'redis'];

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

/** The adapter `name` names: {@link testRedis} or the in-process one. */
export function testTransport(name: TransportName): TransportAdapter {
  return name === 'redis' ? testRedis() : memoryTransport();
}
