import type { DeadLetterReason } from '../dead-letters/dead-letter.js';
import { UnknownEventTypeError } from '../events/errors/unknown-event-type.error.js';
import { HandlerTimeoutError } from './errors/handler-timeout.error.js';
import { NonRetryableError } from './errors/non-retryable.error.js';
import { ThrownValueError } from './errors/thrown-value.error.js';
import { UnknownHandlerError } from './errors/unknown-handler.error.js';

/**
 * Whether an error ends a handler's attempts at once: {@link NonRetryableError},
 * or BullMQ's `UnrecoverableError` (recognized by name, so the handler's copy
 * of bullmq need not be ours), also when it was wrapped in {@link ThrownValueError}
 * because one of its fields cannot be read.
 */
export function isNonRetryable(error: unknown): boolean {
  if (error instanceof ThrownValueError) {
    try {
      return error.thrown instanceof NonRetryableError;
    } catch {
      return false; // A Proxy whose getPrototypeOf trap throws.
    }
  }
  return (
    error instanceof NonRetryableError || (error instanceof Error && error.name === 'UnrecoverableError')
  );
}

/**
 * Why a failed run ends its handler's attempts, or `undefined` when another
 * attempt follows. `lastAttempt`: the run was the handler's last.
 */
export function giveUpReason(error: unknown, lastAttempt: boolean): DeadLetterReason | undefined {
  if (isNonRetryable(error)) return 'non-retryable';
  if (error instanceof UnknownHandlerError) return 'unknown-handler';
  if (!lastAttempt) return undefined;
  return error instanceof HandlerTimeoutError ? 'timeout' : 'exhausted';
}

/** Why a payload could not be decoded, from what the serializer threw. */
export function undecodableReason(error: unknown): DeadLetterReason {
  return error instanceof UnknownEventTypeError ? 'unknown-event-type' : 'malformed';
}
