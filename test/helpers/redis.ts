import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { type CommitbusConfig, queueNames } from '../../src/index.js';

/** The Redis the integration tests use. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh key prefix for one test file: `cb-test-<name>-<8 hex>`. */
export function testPrefix(name: string): string {
  return `cb-test-${name}-${randomUUID().slice(0, 8)}`;
}

/** A plain Redis connection for inspecting what a bus left behind. */
export function openRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
}

/** Deletes every key under `prefix:` (SCAN, never KEYS); returns how many. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Every key matching `pattern` (SCAN, never KEYS). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found;
}

/** What names a bus's keys. */
type BusNames = Pick<CommitbusConfig, 'prefix' | 'name'>;

/** Length of a bus's event stream: events published and not yet handled. */
export function streamLength(redis: Redis, config: BusNames): Promise<number> {
  return redis.xlen(queueNames(config).stream);
}

/** One of a bus's BullMQ queues, to inspect on `redis` (close it; `redis` stays open). */
export function openQueue(redis: Redis, config: BusNames, queue: 'drain' | 'async' | 'retry'): Queue {
  return new Queue(queueNames(config)[queue], { connection: redis, prefix: config.prefix });
}

/** Job counts of one of a bus's BullMQ queues, read through BullMQ. */
export async function jobCounts(
  redis: Redis,
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
  redis: Redis,
  config: BusNames,
  queue: 'drain' | 'async' | 'retry',
): Promise<number> {
  const c = await jobCounts(redis, config, queue);
  return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
}

/** True once the stream is empty and no async or retry job is left to run. */
export async function isSettled(redis: Redis, config: BusNames): Promise<boolean> {
  return (
    (await streamLength(redis, config)) === 0 &&
    (await unfinishedJobs(redis, config, 'async')) === 0 &&
    (await unfinishedJobs(redis, config, 'retry')) === 0
  );
}

/** Jobs in the failed sets of a bus's async and retry queues (work given up must not pile up there). */
export async function failedHandlerJobs(redis: Redis, config: BusNames): Promise<number> {
  const [async, retry] = await Promise.all([
    jobCounts(redis, config, 'async'),
    jobCounts(redis, config, 'retry'),
  ]);
  return (async.failed ?? 0) + (retry.failed ?? 0);
}

/** How many of a bus's two dead-letter keys exist (0 once every letter is gone). */
export function deadLetterKeys(redis: Redis, config: BusNames): Promise<number> {
  const names = queueNames(config);
  return redis.exists(names.deadLetters, names.deadLettersByTime);
}
