import { CommitbusError } from '../../support/commitbus-error.js';

/** `EVENT_HANDLERS` is inconsistent with the registered events or itself. */
export class HandlerConfigError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_HANDLER_CONFIG';

  constructor(message: string) {
    super(message);
  }
}
