import { CommitbusError } from '../../support/commitbus-error.js';

/** An event refused at dispatch: bad type, data JSON cannot carry, or over the size limit. Nothing was queued. */
export class InvalidStoreEventError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_INVALID_STORE_EVENT';

  constructor(message: string, options?: ErrorOptions) {
    super(`${message}; nothing was queued`, options);
  }
}
