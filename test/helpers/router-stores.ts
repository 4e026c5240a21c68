import { afterAll, describe, expect } from 'vitest';
import type { Batch } from '../../src/router/batch.js';
import type { BatchStore } from '../../src/router/batch-store.js';
import type { SubscriberRecord } from '../../src/router/subscriber.js';
import type { SubscriberStore } from '../../src/router/subscriber-store.js';
import type { TokenStore } from '../../src/router/token-store.js';
import type { TopicStore } from '../../src/router/topic-store.js';
import { MemoryBatchStore } from '../../src/transports/memory/memory.batch-store.js';
import { MemoryRouterCatalog } from '../../src/transports/memory/memory.router-catalog.js';
import { MemoryTokenStore } from '../../src/transports/memory/memory.token-store.js';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { RedisBatchStore } from '../../src/transports/redis/redis.batch-store.js';
import { RedisRouterCatalog } from '../../src/transports/redis/redis.router-catalog.js';
import { RedisTokenStore } from '../../src/transports/redis/redis.token-store.js';
import { deleteKeys, openRedis, type RedisClient, scanKeys, testPrefix } from './redis.js';

/** One adapter's four stores, and (on Redis) the keys it left, without the `{tag}:router:` prefix. */
export interface RouterStores {
  readonly tokens: TokenStore;
  readonly topics: TopicStore;
  readonly subscribers: SubscriberStore;
  readonly batches: BatchStore;
  readonly keys?: () => Promise<string[]>;
}

/** A named adapter: `open` gives a fresh, empty set of its stores. */
export interface RouterStoresAdapter {
  readonly name: string;
  readonly open: () => RouterStores;
}

/**
 * The memory adapters, and the Redis ones on `redis` under `prefix` (a bus
 * name per `open`, so each starts empty); `close` ends what they opened.
 */
export function routerStoresAdapters(
  redis: RedisClient,
  prefix: string,
): { adapters: RouterStoresAdapter[]; close: () => Promise<void> } {
  const opened: RedisBatchStore[] = [];
  let cases = 0;
  const memory = (): RouterStores => {
    const catalog = new MemoryRouterCatalog();
    return {
      tokens: new MemoryTokenStore(),
      topics: catalog,
      subscribers: catalog,
      batches: new MemoryBatchStore(catalog),
    };
  };
  const onRedis = (): RouterStores => {
    const names = queueNames({ prefix, name: `case${++cases}` });
    const batches = new RedisBatchStore(redis, names);
    opened.push(batches);
    const catalog = new RedisRouterCatalog(redis, names);
    return {
      tokens: new RedisTokenStore(redis, names),
      topics: catalog,
      subscribers: catalog,
      batches,
      keys: async () => {
        const keyPrefix = `${names.tag}:router:`;
        const found = await scanKeys(redis, `${keyPrefix}*`);
        // The wake list expires by itself and is popped by waiting workers: not state.
        return found.map((key) => key.slice(keyPrefix.length)).filter((key) => key !== 'wake');
      },
    };
  };
  return {
    adapters: [
      { name: 'memory', open: memory },
      { name: 'redis', open: onRedis },
    ],
    close: async () => {
      await Promise.all(opened.map((store) => store.close()));
    },
  };
}

/**
 * Declares `suite` once per store adapter (memory, then Redis under a key
 * prefix of its own, `cb-test-<name>-…`), with `open` giving fresh stores;
 * the keys are deleted and the connections closed after the file.
 */
export function describeOnEachStores(
  name: string,
  title: string,
  suite: (open: () => RouterStores) => void,
): void {
  const prefix = testPrefix(name);
  const redis = openRedis();
  const { adapters, close } = routerStoresAdapters(redis, prefix);
  afterAll(async () => {
    await close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });
  describe.each(adapters)(title, (adapter) => suite(adapter.open));
}

/** Epoch ms the contract test's clock starts at. */
export const T = 1_700_000_000_000;

/** A subscriber record with test defaults (max 100, timeout 500 ms). */
export function subscriber(
  name: string,
  topics: string[],
  settings: Partial<SubscriberRecord> = {},
): SubscriberRecord {
  return {
    name,
    callback: `https://${name}.example.test/events`,
    uuid: `${name}-uuid`,
    maxEvents: 100,
    timeoutMs: 500,
    topics,
    paused: false,
    ordered: false,
    signingSecrets: [],
    ...settings,
  };
}

/** Event `n` as the JSON a subscriber receives. */
export function ev(n: number): string {
  return JSON.stringify({ topic: 't', type: 'create', url: `https://x.test/${n}`, t: T + n });
}

/** Events `ns`, as {@link ev}. */
export function evs(...ns: number[]): string[] {
  return ns.map(ev);
}

/** What matters of taken batches for comparing: subscriber, events, attempts. */
export function shape(batches: Batch[]): { subscriber: string; events: string[]; attempts: number }[] {
  return batches.map((b) => ({ subscriber: b.subscriber, events: [...b.events], attempts: b.attempts }));
}

/** On Redis, asserts the keys left under `{tag}:router:` are `keys`, in any order (nothing to assert in memory). */
export async function expectKeys(s: RouterStores, keys: string[]): Promise<void> {
  if (s.keys === undefined) return;
  expect((await s.keys()).sort()).toEqual([...keys].sort());
}

/** The catalogue keys of subscribers (name to topics), with the topic hashes and the batch counter. */
export function catalogKeys(subs: Record<string, string[]>): string[] {
  const keys = ['topics', 'topic-events', 'subscribers', 'seq'];
  const topics = new Set<string>();
  for (const [name, ts] of Object.entries(subs)) {
    keys.push(`s:${name}`);
    if (ts.length > 0) keys.push(`st:${name}`);
    for (const t of ts) topics.add(t);
  }
  for (const t of topics) keys.push(`ts:${t}`);
  return keys;
}
