export { CreateCommitbusOrderKeys1763900000000 } from './create-order-keys-table.migration.js';
export type { EventOrdering } from './event-ordering.js';
export type { HaltedKey } from './halted-key.js';
export { InvalidOrderKeyError } from './invalid-order-key.error.js';
export { type OrderKeyRecord, OrderKeyRecordEntity } from './order-key-record.entity.js';
export { OrderedKeys } from './ordered-keys.js';
export { OrderingNotConfiguredError } from './ordering-not-configured.error.js';
export type { AfterLastAttempt, OrderingPolicy } from './ordering-policy.js';
export type { OrderingStore } from './ordering-store.js';
