import { afterAll, describe, expect } from 'vitest';
import type { Batch } from '../../src/router/batch.js';
import type { RouterStores as RouterStoresPort } from '../../src/router/router-stores.js';
import type { SubscriberRecord } from '../../src/router/subscriber.js';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { RedisBatchStore } from '../../src/transports/redis/redis.batch-store.js';
import { ADAPTERS } from '../conformance/adapters.js';
import { conformanceBed } from '../conformance/bed.js';
import { scanKeys } from './redis.js';

/** One adapter's router stores, and (on Redis) the keys they left, without the `{tag}:router:` prefix. */
export type RouterStores = RouterStoresPort & { readonly keys?: () => Promise<string[]> };

/**
 * Declares `suite` once per adapter of test/conformance/adapters.ts whose
 * transport provides the router's stores, with `open` giving fresh, empty
 * stores (those of a fresh bus on the adapter, under a key prefix of the
 * file's own, `cb-test-<name>-…`); they are closed and the keys deleted
 * after the file.
 */
export function describeOnEachStores(
  name: string,
  title: string,
  suite: (open: () => RouterStores) => void,
): void {
  const bed = conformanceBed(name, { keepBuses: true });
  const opened: RouterStoresPort[] = [];
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((stores) => stores.close()));
  });
  describe.each(ADAPTERS.filter((adapter) => adapter.routerStores))(title, (adapter) =>
    suite(() => {
      const { transport, name: busName } = bed.open(adapter);
      if (transport.routerStores === undefined) throw new Error(`${adapter.name} has no router stores`);
      const stores = transport.routerStores({});
      opened.push(stores);
      if (!(stores.batches instanceof RedisBatchStore)) return stores;
      const keyPrefix = `${queueNames({ prefix: bed.prefix, name: busName }).tag}:router:`;
      return {
        ...stores,
        keys: async () => {
          const found = await scanKeys(bed.redis, `${keyPrefix}*`);
          // The wake list expires by itself and is popped by waiting workers: not state.
          return found.map((key) => key.slice(keyPrefix.length)).filter((key) => key !== 'wake');
        },
      };
    }),
  );
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
