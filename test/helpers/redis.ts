import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from '../../src/config/option-groups.js';
import { queueNamesOf } from '../../src/transports/redis/queue-names.js';
import type { RedisClient } from '../../src/transports/redis/redis-client.js';

export type { RedisClient };

/** The Redis the integration tests use. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The Redis Cluster the tests run on instead, when `REDIS_CLUSTER_NODES`
 * (`host:port,...`) is set: `npm test`'s cluster project sets it.
 */
export const CLUSTER_NODES: readonly string[] | undefined = process.env.REDIS_CLUSTER_NODES?.split(',')
  .map((node) => node.trim())
  .filter((node) => node !== '');

/** Whether this run is on a Redis Cluster. */
export const ON_CLUSTER = CLUSTER_NODES !== undefined && CLUSTER_NODES.length > 0;

/** The Redis options of a test bus: the cluster's nodes on a cluster, else `REDIS_URL`. */
export function redisConfig(): Partial<Pick<RedisOptions, 'url' | 'cluster'>> {
  return ON_CLUSTER ? { cluster: CLUSTER_NODES } : { url: REDIS_URL };
}

/** What child processes need to reach the same Redis (`REDIS_URL`, and `REDIS_CLUSTER_NODES` on a cluster). */
export function redisEnv(): Record<string, string> {
  return ON_CLUSTER ? { REDIS_URL, REDIS_CLUSTER_NODES: (CLUSTER_NODES ?? []).join(',') } : { REDIS_URL };
}

/** A fresh key prefix for one test file: `cb-test-<name>-<8 hex>`. */
export function testPrefix(name: string): string {
  return `cb-test-${name}-${randomUUID().slice(0, 8)}`;
}

/** A plain connection (to the cluster, on one) for inspecting what a bus left behind. */
export function openRedis(): RedisClient {
  return ON_CLUSTER
    ? new Cluster([...(CLUSTER_NODES ?? [])], { redisOptions: { maxRetriesPerRequest: 2 } })
    : new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
}

/** The servers holding keys: every master of a cluster, or the one Redis. */
function servers(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/**
 * Every key under `prefix:`, the bus's `{prefix:...}` keys included (SCAN on
 * every master, never KEYS); returns how many were deleted.
 */
export async function deleteKeys(redis: RedisClient, prefix: string): Promise<number> {
  const keys = [...(await scanKeys(redis, `${prefix}:*`)), ...(await scanKeys(redis, `{${prefix}:*`))];
  let deleted = 0;
  // One key per command: on a cluster, keys of different slots may not share one.
  for (let i = 0; i < keys.length; i += 1_000) {
    const replies = await Promise.all(keys.slice(i, i + 1_000).map((key) => redis.unlink(key)));
    deleted += replies.reduce((sum, n) => sum + n, 0);
  }
  return deleted;
}

/** Every key matching `pattern` (SCAN on every master, never KEYS). */
export async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const server of servers(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/** What names a bus's keys. */
type BusNames = Parameters<typeof queueNamesOf>[0];

/** Length of a bus's event stream: events published and not yet handled. */
export function streamLength(redis: RedisClient, config: BusNames): Promise<number> {
  return redis.xlen(queueNamesOf(config).stream);
}

/** One of a bus's BullMQ queues, to inspect on `redis` (close it; `redis` stays open). */
export function openQueue(redis: RedisClient, config: BusNames, queue: 'drain' | 'async' | 'retry'): Queue {
  const names = queueNamesOf(config);
  return new Queue(names[queue], { connection: redis, prefix: names.bullmqPrefix });
}

/** Job counts of one of a bus's BullMQ queues, read through BullMQ. */
export async function jobCounts(
  redis: RedisClient,
  config: BusNames,
  queue: 'drain' | 'async' | 'retry',
): Promise<Record<string, number>> {
  const q = openQueue(redis, config, queue);
  try {
    return await q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
  } finally {
    await q.close();
  }
}

/** Jobs of a queue not finished yet (waiting, active, delayed or prioritized). */
export async function unfinishedJobs(
  redis: RedisClient,
  config: BusNames,
  queue: 'drain' | 'async' | 'retry',
): Promise<number> {
  const c = await jobCounts(redis, config, queue);
  return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
}

/** True once the stream is empty and no async or retry job is left to run. */
export async function isSettled(redis: RedisClient, config: BusNames): Promise<boolean> {
  return (
    (await streamLength(redis, config)) === 0 &&
    (await unfinishedJobs(redis, config, 'async')) === 0 &&
    (await unfinishedJobs(redis, config, 'retry')) === 0
  );
}

/** Jobs in the failed sets of a bus's async and retry queues (work given up must not pile up there). */
export async function failedHandlerJobs(redis: RedisClient, config: BusNames): Promise<number> {
  const [async, retry] = await Promise.all([
    jobCounts(redis, config, 'async'),
    jobCounts(redis, config, 'retry'),
  ]);
  return (async.failed ?? 0) + (retry.failed ?? 0);
}

/** How many of a bus's two dead-letter keys exist (0 once every letter is gone). */
export function deadLetterKeys(redis: RedisClient, config: BusNames): Promise<number> {
  const names = queueNamesOf(config);
  return redis.exists(names.deadLetters, names.deadLettersByTime);
}
