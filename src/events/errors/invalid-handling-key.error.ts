import { CommitbusError } from '../../support/commitbus-error.js';

/** A handling key is not dotted segments of letters, digits, `_` or `-`. */
export class InvalidHandlingKeyError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_INVALID_HANDLING_KEY';

  constructor(readonly handlingKey: unknown) {
    super(
      `invalid handling key ${JSON.stringify(handlingKey)}: use dotted segments of letters, digits, "_" or "-", e.g. "RECORD.CREATE"`,
    );
  }
}
