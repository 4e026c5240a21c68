import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * Delivery options (`delay`, `delayUntil`) an event cannot be sent with: both
 * given, out of range, or a delay on an ordered event. Nothing was
 * registered or published.
 */
export class InvalidDeliveryOptionsError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_INVALID_DELIVERY_OPTIONS';
}
