import { CommitbusError } from '../../support/commitbus-error.js';

/** An item in a parked-work list cannot be read; the items after it wait behind it. */
export class MalformedParkedWorkError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_MALFORMED_PARKED_WORK';

  constructor(
    readonly where: string,
    options?: ErrorOptions,
  ) {
    super(
      `an item of the parked work in ${where} is not JSON; remove it (LREM) so the work parked after it can be released`,
      options,
    );
  }
}
