/**
 * `commitbus/event-store`: the event store's tables, migration, other errors, defaults and types.
 * @module commitbus/event-store
 */

export { createEventStore } from './create-event-store.js';
export type { DispatchTarget } from './dispatch.op.js';
export { DispatchOp } from './dispatch.op.js';
export type { DispatchOptions } from './dispatch-options.js';
export { ApplyResultError } from './errors/apply-result.error.js';
export { EventRejectedError } from './errors/event-rejected.error.js';
export { EventSkippedError } from './errors/event-skipped.error.js';
export { EventStoreHaltedError } from './errors/event-store-halted.error.js';
export { EventStoreNotConfiguredError } from './errors/event-store-not-configured.error.js';
export { EventStoreQueueGapError } from './errors/event-store-queue-gap.error.js';
export { EventStoreStepTimeoutError } from './errors/event-store-step-timeout.error.js';
export { EventStoreTimeoutError } from './errors/event-store-timeout.error.js';
export { EventStoreUsageError } from './errors/event-store-usage.error.js';
export { InvalidStoreEventError } from './errors/invalid-store-event.error.js';
export { MalformedResultError } from './errors/malformed-result.error.js';
export { SubscriptionHaltedError } from './errors/subscription-halted.error.js';
export { SubscriptionHandlerTimeoutError } from './errors/subscription-handler-timeout.error.js';
export { SubscriptionTimeoutError } from './errors/subscription-timeout.error.js';
export { UnknownStoreEventTypeError } from './errors/unknown-store-event-type.error.js';
export type {
  ApplyResult,
  CycleContext,
  Derivation,
  Deriver,
  EventModel,
  Listener,
  Preprocessor,
  ReduceContext,
  Reducer,
  SubEventRecordView,
  Transact,
  TransactContext,
} from './event-model.js';
export { defineModel } from './event-model.js';
export { EventStore } from './event-store.js';
export {
  EVENT_STORE_DEFAULTS,
  type EventStoreOptions,
  type EventStoreTuning,
} from './event-store-options.js';
export type { EventStoreStatus } from './event-store-status.js';
export type { FailureListener, StoreFailure } from './failure-notices.js';
export type { OperatorNote } from './operator-actions.js';
export type { PruneOptions } from './prune.js';
export type { ReducerResult, RowKey } from './reducer-result.js';
export type { ReplayOptions, ReplayProgress, ReplayReport } from './replay.js';
export { CreateCommitbusEventStore1764100000000 } from './schema/create-event-store-tables.migration.js';
export { CreateCommitbusEsSubscriptions1764200000000 } from './schema/create-subscriptions-table.migration.js';
export { type StoreEventRow, StoreEventRowEntity } from './schema/store-event-row.entity.js';
export { type StoreStateRow, StoreStateRowEntity } from './schema/store-state-row.entity.js';
export { type SubscriptionRow, SubscriptionRowEntity } from './schema/subscription-row.entity.js';
export type {
  AuditEntry,
  HistoryEvent,
  ModelResults,
  StepFailure,
  StoreEvent,
  StoreEventInput,
  StoreEventStatus,
  SubEventRecord,
} from './store-event.js';
export { Subscription } from './subscriptions/subscription.js';
export {
  type DeliveredStatus,
  SUBSCRIPTION_DEFAULTS,
  type SubscriptionContext,
  type SubscriptionHandler,
  type SubscriptionOptions,
  type SubscriptionStart,
  type SubscriptionTuning,
} from './subscriptions/subscription-options.js';
export type { SubscriptionFailure, SubscriptionStatus } from './subscriptions/subscription-status.js';
export { type CaughtUpOptions, type SubscriptionHost, Subscriptions } from './subscriptions/subscriptions.js';
