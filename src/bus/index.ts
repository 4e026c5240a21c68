export type { BusStatus } from './bus-status.js';
export { COMMITBUS_ENTITIES, COMMITBUS_MIGRATIONS } from './commitbus-schema.js';
export { createRouterStores } from './create-router-stores.js';
export { BusClosedError } from './errors/bus-closed.error.js';
export { DataSourceMismatchError } from './errors/data-source-mismatch.error.js';
export { IdleTimeoutError } from './errors/idle-timeout.error.js';
export { createEventBus, EventBus } from './event-bus.js';
export type { EventBusOptions, RunningWorker, StartWorkerOptions } from './event-bus-options.js';
export { type RunningRouter, type StartRouterDeps, startRouter } from './start-router.js';
