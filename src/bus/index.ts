export { BullmqTransport } from './bullmq/bullmq.transport.js';
export { type QueueNames, queueNames } from './bullmq/queue-names.js';
export { RedisDeadLetterStore } from './bullmq/redis.dead-letter-store.js';
export type { DeliveryOptions } from './delivery-options.js';
export { DuplicateEventTypeError } from './errors/duplicate-event-type.error.js';
export { EventTooLargeError } from './errors/event-too-large.error.js';
export { InvalidEventIdError } from './errors/invalid-event-id.error.js';
export { InvalidHandlingKeyError } from './errors/invalid-handling-key.error.js';
export { MalformedEventError } from './errors/malformed-event.error.js';
export { MissingEventTypeError } from './errors/missing-event-type.error.js';
export { TransportUnavailableError } from './errors/transport-unavailable.error.js';
export { UnknownEventTypeError } from './errors/unknown-event-type.error.js';
export { type ConcreteEventClass, Event, type EventProps } from './event.js';
export {
  createEventBus,
  EventBus,
  type EventBusOptions,
  type RunningWorker,
  type StartWorkerOptions,
} from './event-bus.js';
export type { EventContext } from './event-context.js';
export { EventRegistry } from './event-registry.js';
export { EventSerializer } from './event-serializer.js';
export { type EventClass, EventType, type EventTypeOptions } from './event-type.decorator.js';
export { consoleLogger, type Logger, silentLogger } from './logger.js';
export { MemoryDeadLetterStore } from './memory/memory.dead-letter-store.js';
export { MemoryTransport } from './memory/memory.transport.js';
export type { AppendResult, OutgoingEvent } from './outgoing-event.js';
export type { SerializedEvent } from './serialized-event.js';
export type { Transport, TransportWorker, WorkerOrdering, WorkerRuntime } from './transport.js';
