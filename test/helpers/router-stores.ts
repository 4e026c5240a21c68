import type { BatchStore } from '../../src/router/batch-store.js';
import type { SubscriberStore } from '../../src/router/subscriber-store.js';
import type { TokenStore } from '../../src/router/token-store.js';
import type { TopicStore } from '../../src/router/topic-store.js';
import {
  MemoryBatchStore,
  MemoryRouterCatalog,
  MemoryTokenStore,
} from '../../src/transports/memory/index.js';

/** The four store ports of a router, from one adapter, and how to let them go. */
export interface RouterStores {
  readonly tokens: TokenStore;
  readonly topics: TopicStore;
  readonly subscribers: SubscriberStore;
  readonly batches: BatchStore;
  /** Closes connections and deletes what the stores left (on Redis, their keys). */
  close(): Promise<void>;
}

/** An adapter of the router's stores, for `describe.each`. */
export interface RouterStoreAdapter {
  readonly name: 'memory' | 'redis';
}

/** Every adapter the router's tests run against. */
export const ROUTER_STORE_ADAPTERS: readonly RouterStoreAdapter[] = [{ name: 'memory' }];

/** Fresh, empty stores of one adapter. */
export async function openRouterStores(adapter: RouterStoreAdapter): Promise<RouterStores> {
  switch (adapter.name) {
    case 'memory': {
      const catalog = new MemoryRouterCatalog();
      return {
        tokens: new MemoryTokenStore(),
        topics: catalog,
        subscribers: catalog,
        batches: new MemoryBatchStore(catalog),
        close: async () => {},
      };
    }
    case 'redis':
      throw new Error('the Redis router stores are not there yet');
  }
}
