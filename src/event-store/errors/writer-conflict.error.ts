import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * The handled version moved under the writer (an operator skipped the event
 * it was on, or another writer ran): its transaction rolls back and it reads
 * the state again. Internal: users never see it.
 */
export class WriterConflictError extends CommitbusError {
  /** Stable code for logs. */
  readonly code = 'COMMITBUS_EVENT_STORE_WRITER_CONFLICT';

  constructor(expected: number) {
    super(
      `the handled version is no longer ${expected}: an operator skipped the event, or another process handled it; reading the state again`,
    );
  }
}
