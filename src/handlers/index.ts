export { type BackoffOptions, backoffDelay } from './backoff.js';
export type { DrainLimits, DrainResult, DrainStopReason } from './drain.js';
export type {
  EventHandlersConfig,
  HandlerEntry,
  HandlerEntryOptions,
} from './event-handlers-config.js';
export { defineHandler, type Handler, type HandlerContext, type HandlerFn, isHandler } from './handler.js';
export { HandlerConfigError } from './handler-config.error.js';
export type { HandlerPlan, ResolvedHandler } from './handler-table.js';
export { HandlerTable } from './handler-table.js';
export { HandlerTimeoutError } from './handler-timeout.error.js';
export { NonRetryableError } from './non-retryable.error.js';
export { UnknownHandlerError } from './unknown-handler.error.js';
