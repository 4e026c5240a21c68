import { CommitbusError } from '../../support/commitbus-error.js';

/** `bus.history({ sinceMs })` given a `sinceMs` that is not a number of milliseconds from 0. */
export class HistoryQueryError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_HISTORY_QUERY';

  /** @param sinceMs - what was given. */
  constructor(sinceMs: unknown) {
    super(
      `bus.history({ sinceMs }) takes how far back to read in milliseconds, a whole number from 0 (at most 24 hours are kept), got ${String(sinceMs)}`,
    );
  }
}
