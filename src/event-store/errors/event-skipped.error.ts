import { CommitbusError } from '../../support/commitbus-error.js';
import type { HistoryEvent } from '../store-event.js';

/** The event a `dispatch` waited for was skipped by an operator (or ignored as an unknown type): it changed nothing. */
export class EventSkippedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_SKIPPED';

  /** @param event - its history row. */
  constructor(readonly event: HistoryEvent) {
    super(
      `event v${event.v} (${event.type}) was ${event.status === 'ignored' ? 'ignored: no model knows its type' : 'skipped by an operator'}; it changed no table`,
    );
  }
}
