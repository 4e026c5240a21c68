export type { BackoffOptions } from '../support/backoff.js';
export type {
  AfterFailure,
  BusObserver,
  FailedRun,
  HandledRun,
  ParkedRun,
  ScheduledRetry,
} from './bus-observer.js';
export type { DrainResult, DrainStopReason } from './drain.js';
export type { EventHandlersConfig, HandlerEntry, HandlerEntryOptions } from './event-handlers-config.js';
export {
  type DefineHandlerOptions,
  defineHandler,
  type Handler,
  type HandlerContext,
  type HandlerFn,
  type IdempotentHandler,
  type IdempotentHandlerContext,
} from './handler.js';
export { HandlerConfigError } from './handler-config.error.js';
export { HandlerCrashedError } from './handler-crashed.error.js';
export { HandlerTimeoutError } from './handler-timeout.error.js';
export { type HandlerOptions, HandlersBuilder, handlers } from './handlers-builder.js';
export { NonRetryableError } from './non-retryable.error.js';
export { ThrownValueError } from './thrown-value.error.js';
export { UnknownHandlerError } from './unknown-handler.error.js';
