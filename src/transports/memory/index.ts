export { MemoryDeadLetterStore } from './memory.dead-letter-store.js';
export { MemoryEventLog } from './memory.event-log.js';
export { MemoryOrderingStore } from './memory.ordering-store.js';
export { MemorySchedulingRuleStore } from './memory.scheduling-rule-store.js';
export { MemoryTransport } from './memory.transport.js';
