import { CommitbusError } from '../../support/commitbus-error.js';

/** A job names a handler that this worker's `EVENT_HANDLERS` does not have. */
export class UnknownHandlerError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNKNOWN_HANDLER';

  constructor(
    readonly handlerName: string,
    readonly handlingKey: string,
  ) {
    super(
      `no handler named ${JSON.stringify(handlerName)} for ${JSON.stringify(handlingKey)} on this worker; deploy the same EVENT_HANDLERS to publishers and workers`,
    );
  }
}
