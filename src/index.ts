/**
 * The package root: what a service author needs. Adapters and their stores
 * are at `commitbus/redis` and `commitbus/memory`, the test bus at
 * `commitbus/testing`, the router's parts at `commitbus/router`, the event store's at
 * `commitbus/event-store`. `test/package/package-root.test.ts` pins this list: adding a
 * name is a deliberate change (and a line in README's API section).
 * @module commitbus
 */
import 'reflect-metadata';

export * from './bus/index.js';
export * from './config/index.js';
export * from './dead-letters/index.js';
export * from './event-store/public.js';
export * from './events/index.js';
export * from './handlers/index.js';
export * from './idempotency/index.js';
export * from './metrics/index.js';
export * from './ordering/index.js';
export * from './outbox/index.js';
export * from './router/public.js';
export * from './scheduling/index.js';
export * from './support/index.js';
export * from './tracing/index.js';
export * from './uow/index.js';
