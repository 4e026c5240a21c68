import type { HistoryEvent } from '../store-event.js';

/**
 * An event failed and the store is halted at its version: later events wait.
 * `dispatch` rejects with it when the event it waits for is the one that failed.
 */
export class EventStoreHaltedError extends Error {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_HALTED';

  /** @param event - the failing event's history row, its `error` set. */
  constructor(readonly event: HistoryEvent) {
    const failure = event.error;
    const where = failure
      ? `${failure.step}${failure.model ? ` (model ${failure.model})` : ''}${failure.path.length > 1 ? ` of sub-event ${failure.path.join(' > ')}` : ''}: ${failure.message}`
      : 'an unknown step';
    super(
      `event v${event.v} (${event.type}) failed in ${where}. The event store is halted at v${event.v} and retries with backoff; ` +
        `fix the cause and call store.retry(), or store.correct(${event.v}, data) to fix its data, or store.skip(${event.v}) to step over it`,
    );
    this.name = 'EventStoreHaltedError';
  }
}
