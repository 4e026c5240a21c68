export type { BusStatus } from './bus-status.js';
export { COMMITBUS_ENTITIES, COMMITBUS_MIGRATIONS } from './commitbus-schema.js';
export { BusClosedError } from './errors/bus-closed.error.js';
export { DataSourceMismatchError } from './errors/data-source-mismatch.error.js';
export { IdleTimeoutError } from './errors/idle-timeout.error.js';
export { RouterStoresUnsupportedError } from './errors/router-stores-unsupported.error.js';
export { createEventBus, EventBus } from './event-bus.js';
export type { EventBusOptions, RunningWorker, StartWorkerOptions } from './event-bus-options.js';
export type { TransportAdapter, TransportContext } from './transport.js';
