import 'reflect-metadata';

export * from './bus/index.js';
export * from './config/index.js';
export * from './dead-letters/index.js';
export * from './handlers/index.js';
export * from './idempotency/index.js';
export * from './ordering/index.js';
export * from './outbox/index.js';
export * from './scheduling/index.js';
export * from './schema/index.js';
export * from './uow/index.js';
