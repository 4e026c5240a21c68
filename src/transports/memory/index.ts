/**
 * `commitbus/memory`: the in-process adapter's old name. It runs on SQLite
 * in this process's memory (`sqliteTransport()` from `commitbus/sql`).
 * @deprecated Import `sqliteTransport` from `commitbus/sql`. Removed in 0.3.
 * @module commitbus/memory
 */
export { memoryTransport } from './memory-transport.js';
