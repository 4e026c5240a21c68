import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * Throw this from a handler to fail it at once, without the remaining
 * attempts (BullMQ's `UnrecoverableError`, transport-neutral). commitbus also
 * uses it for work that can never succeed, such as an undecodable payload.
 */
export class NonRetryableError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code: string = 'COMMITBUS_NON_RETRYABLE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
