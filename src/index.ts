/**
 * The package root: what a service author needs. Adapters and their stores
 * are at `commitbus/redis` and `commitbus/sql` (`commitbus/memory` keeps the
 * deprecated `memoryTransport()`; `transportFromEnv` at
 * `commitbus/transports` picks one from the environment), the test bus at
 * `commitbus/testing`, the router's parts (and `startRouter`) at
 * `commitbus/router`, the event store's at `commitbus/event-store`, a bus's
 * Prometheus metrics at `commitbus/metrics`, the dashboard at
 * `commitbus/dashboard`: the root loads none of BullMQ, ioredis, Fastify,
 * undici or prom-client (`test/package/root-imports.test.ts`).
 * `test/package/package-root.test.ts` pins this list: adding a name is a
 * deliberate change (and a line in README's API section).
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
export * from './metrics/public.js';
export * from './ordering/index.js';
export * from './outbox/index.js';
export * from './router/public.js';
export * from './scheduling/index.js';
export * from './support/index.js';
export * from './tracing/index.js';
export * from './uow/index.js';
