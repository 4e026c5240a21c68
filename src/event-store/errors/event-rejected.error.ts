import { CommitbusError } from '../../support/commitbus-error.js';
import type { HistoryEvent } from '../store-event.js';

/**
 * A reducer rejected the event (it returned `{ esFail: reason }`): the
 * event changed nothing, its history row is `rejected` with the reason in
 * `error`, and the store went on with the next event. `dispatch` and
 * `handledVersion` reject with it; so does transact's `ctx.dispatch` of a
 * sub-event that was rejected (which rejects the whole event).
 */
export class EventRejectedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_REJECTED';

  /**
   * @param reason - what the reducer gave as `esFail`.
   * @param event - the rejected event's history row, once recorded.
   * @param model - the model whose reducer rejected it.
   */
  constructor(
    readonly reason: string,
    readonly event?: HistoryEvent,
    readonly model?: string,
  ) {
    const by = model === undefined ? '' : ` by model ${model}`;
    // Without its row: thrown inside the cycle (to transact's ctx.dispatch), before anything is recorded.
    super(
      event === undefined
        ? `the sub-event was rejected${by}: ${reason}; its whole event is rejected`
        : `event v${event.v} (${event.type}) was rejected${by}: ${reason}. It changed nothing; the store went on with the next event`,
    );
  }

  /** The error for a history row recorded as `rejected`. */
  static of(event: HistoryEvent): EventRejectedError {
    return new EventRejectedError(event.error?.message ?? 'no reason given', event, event.error?.model);
  }
}
