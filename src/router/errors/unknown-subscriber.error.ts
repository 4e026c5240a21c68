import { CommitbusError } from '../../support/commitbus-error.js';

/** Events were requeued (a webhook dead letter re-driven) for a subscriber that no longer exists. */
export class UnknownSubscriberError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNKNOWN_SUBSCRIBER';

  constructor(readonly subscriber: string) {
    super(
      `no subscriber "${subscriber}" to requeue events for: subscribe it again first (POST /subscription), or purge the letter`,
    );
  }
}
