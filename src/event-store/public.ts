/**
 * What the package root takes from the event-store room: making a store,
 * declaring models, dispatching in a unit of work, and the errors a
 * dispatcher catches, and durable subscriptions' types. The rest (tables, migrations, other errors) is at
 * `commitbus/event-store`.
 */

export { createEventStore } from './create-event-store.js';
export { DispatchOp } from './dispatch.op.js';
export type { DispatchOptions } from './dispatch-options.js';
export { EventRejectedError } from './errors/event-rejected.error.js';
export { EventSkippedError } from './errors/event-skipped.error.js';
export { EventStoreHaltedError } from './errors/event-store-halted.error.js';
export { SubscriptionHaltedError } from './errors/subscription-halted.error.js';
export type { EventModel, ReduceContext, Reducer } from './event-model.js';
export { defineModel } from './event-model.js';
export { EventStore } from './event-store.js';
export type { EventStoreOptions } from './event-store-options.js';
export type { FailureListener, StoreFailure } from './failure-notices.js';
export type { ReducerResult } from './reducer-result.js';
export type { HistoryEvent, StoreEvent } from './store-event.js';
export type { Subscription } from './subscriptions/subscription.js';
export type {
  SubscriptionContext,
  SubscriptionHandler,
  SubscriptionOptions,
} from './subscriptions/subscription-options.js';
export type { SubscriptionStatus } from './subscriptions/subscription-status.js';
