import { CommitbusError } from '../../support/commitbus-error.js';

/** The event store was used in a way it does not allow; the message says what to do instead. */
export class EventStoreUsageError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_USAGE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
