import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * A durable subscription's handler had not settled after `handlerTimeoutMs`:
 * the try failed (retried with backoff, halting after `maxAttempts`) and
 * `ctx.signal` was aborted with this error. The handler is abandoned, not
 * stopped. Seen as the failure's `name` in `store.subscriptions.status(name)`.
 */
export class SubscriptionHandlerTimeoutError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SUBSCRIPTION_HANDLER_TIMEOUT';

  /**
   * @param subscription - the subscription's name.
   * @param v - the event's version.
   * @param timeoutMs - the limit it passed.
   */
  constructor(
    readonly subscription: string,
    readonly v: number,
    timeoutMs: number,
  ) {
    super(
      `subscription "${subscription}"'s handler had not settled on v${v} after ${timeoutMs} ms: stop I/O on ctx.signal, or raise handlerTimeoutMs`,
    );
  }
}
