import { CommitbusError } from '../../support/commitbus-error.js';
import type { StepFailure } from '../store-event.js';

/**
 * A step of the cycle (a preprocessor, reducer, apply step, deriver or
 * transact callback) did not settle within `stepTimeoutMs`. The event is
 * rolled back and the store halts at it, as for any failure; the callback's
 * code is abandoned, not stopped.
 */
export class EventStoreStepTimeoutError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_STEP_TIMEOUT';

  constructor(
    readonly step: StepFailure['step'],
    readonly model: string | undefined,
    readonly timeoutMs: number,
  ) {
    super(
      `the ${step}${model === undefined ? '' : ` of model "${model}"`} did not settle within ${timeoutMs} ms (stepTimeoutMs): the event was rolled back and the store halts at it. A callback that waits on another database connection (the DataSource, a repository of its own) for a row this event wrote waits for the writer, which waits for it: read and write through ctx (ctx.get, ctx.manager, ctx.apply). Fix it, then store.retry() or store.skip(v)`,
    );
  }
}
