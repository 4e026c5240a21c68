import { CommitbusError } from '../../support/commitbus-error.js';
import type { HistoryEvent } from '../store-event.js';

/**
 * An event failed and the store is halted at its version: later events
 * wait. It stays queued and the writer retries it with backoff, so it may
 * still be applied: do not dispatch it again. `dispatch` rejects with it when
 * its own event fails; `waitForQueue` when any event it waits for fails.
 */
export class EventStoreHaltedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_HALTED';

  /**
   * @param event - the failing event's history row, its `error` set.
   * @param waitingFor - the version the caller waited for.
   */
  constructor(
    readonly event: HistoryEvent,
    readonly waitingFor: number = event.v,
  ) {
    const failure = event.error;
    const where = failure
      ? `${failure.step}${failure.model ? ` (model ${failure.model})` : ''}${failure.path.length > 1 ? ` of sub-event ${failure.path.join(' > ')}` : ''}: ${failure.message}`
      : 'an unknown step';
    const yours = waitingFor === event.v ? '' : ` (you waited for v${waitingFor}, which waits behind it)`;
    super(
      `event v${event.v} (${event.type}) failed in ${where}${yours}. It stays queued and the writer retries it with backoff (attempt ${event.attempts}), so it may still be applied: do not dispatch it again. ` +
        `To resume: fix the cause and call store.retry(), or store.correct(${event.v}, data) to fix its data, or store.skip(${event.v}) to step over it`,
    );
  }
}
