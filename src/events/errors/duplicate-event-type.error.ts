import { CommitbusError } from '../../support/commitbus-error.js';

/** Two different classes claim the same handling key. */
export class DuplicateEventTypeError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_DUPLICATE_EVENT_TYPE';

  constructor(
    readonly handlingKey: string,
    existing: string,
    added: string,
  ) {
    super(
      `handling key ${JSON.stringify(handlingKey)} is already registered by class ${existing}; ${added} needs a key of its own`,
    );
  }
}
