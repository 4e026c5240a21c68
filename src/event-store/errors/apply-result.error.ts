import { CommitbusError } from '../../support/commitbus-error.js';

/** The apply step could not write a result: `ins` of an existing row, `upd` of a missing one, or the database refused. */
export class ApplyResultError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_APPLY';

  constructor(
    readonly model: string,
    readonly key: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`model "${model}", ${key}: ${message}`, options);
  }
}
