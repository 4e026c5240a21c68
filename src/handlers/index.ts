export type { BackoffOptions } from '../support/retry-policy.js';
export type {
  AfterFailure,
  BusObserver,
  FailedRun,
  HandledRun,
  ParkedRun,
  ScheduledRetry,
} from './bus-observer.js';
export type { DrainResult, DrainStopReason } from './drain.js';
export { HandlerConfigError } from './errors/handler-config.error.js';
export { HandlerCrashedError } from './errors/handler-crashed.error.js';
export { HandlerTimeoutError } from './errors/handler-timeout.error.js';
export { NonRetryableError } from './errors/non-retryable.error.js';
export { ThrownValueError } from './errors/thrown-value.error.js';
export { UnknownHandlerError } from './errors/unknown-handler.error.js';
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
export { type HandlerOptions, HandlersBuilder, handlers } from './handlers-builder.js';
