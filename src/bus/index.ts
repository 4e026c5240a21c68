export { COMMITBUS_ENTITIES, COMMITBUS_MIGRATIONS } from './commitbus-schema.js';
export { createEventBus, EventBus } from './event-bus.js';
export type { EventBusOptions, RunningWorker, StartWorkerOptions } from './event-bus-options.js';
