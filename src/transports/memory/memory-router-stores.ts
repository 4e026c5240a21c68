import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import type { RouterStores } from '../../router/router-stores.js';
import { MemoryBatchStore } from './memory.batch-store.js';
import { MemoryDeadLetterStore } from './memory.dead-letter-store.js';
import { MemoryRouterCatalog } from './memory.router-catalog.js';
import { MemoryTokenStore } from './memory.token-store.js';

/**
 * The router's stores in this process (tests, the demo): lost when it
 * stops. `shared.deadLetters` hands in a bus's own dead-letter store.
 */
export function memoryRouterStores(shared: { readonly deadLetters?: DeadLetterStore } = {}): RouterStores {
  const catalog = new MemoryRouterCatalog();
  return {
    tokens: new MemoryTokenStore(),
    topics: catalog,
    subscribers: catalog,
    batches: new MemoryBatchStore(catalog),
    deadLetters: shared.deadLetters ?? new MemoryDeadLetterStore(),
    ping: async () => undefined,
    isUnavailable: () => false,
    close: async () => undefined,
  };
}
