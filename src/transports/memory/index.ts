/**
 * `commitbus/memory`: the in-process adapter and its stores (the embedded default).
 * @module commitbus/memory
 */
export { MemoryWorkerStartedError } from './errors/memory-worker-started.error.js';
export { MemoryBatchStore } from './memory.batch-store.js';
export { MemoryDeadLetterStore } from './memory.dead-letter-store.js';
export { MemoryEventLog } from './memory.event-log.js';
export { MemoryOrderingStore } from './memory.ordering-store.js';
export { MemoryRouterCatalog } from './memory.router-catalog.js';
export { MemorySchedulingRuleStore } from './memory.scheduling-rule-store.js';
export { MemoryTokenStore } from './memory.token-store.js';
export { MemoryTransport } from './memory.transport.js';
export { memoryRouterStores } from './memory-router-stores.js';
export { memoryTransport } from './memory-transport.js';
