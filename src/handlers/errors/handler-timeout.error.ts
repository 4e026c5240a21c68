import { envNameOf } from '../../config/option-env.js';
import { CommitbusError } from '../../support/commitbus-error.js';

/** The config option of every handler's timeout, by its grouped name (`handlers.timeoutMs`). */
const TIMEOUT_OPTION = 'handlers.timeoutMs';

/**
 * A handler run did not settle within its timeout. It counts as a failed
 * attempt, and the run's `ctx.signal` is aborted with this error.
 */
export class HandlerTimeoutError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_HANDLER_TIMEOUT';

  constructor(
    readonly handlerName: string,
    readonly eventId: string,
    readonly timeoutMs: number,
  ) {
    super(
      `handler ${JSON.stringify(handlerName)} did not finish within ${timeoutMs} ms for event ${eventId}; the run counts as a failed attempt and its ctx.signal was aborted. Make the handler stop its I/O when ctx.signal aborts, or give it more time with the handler's option timeoutMs, or config ${TIMEOUT_OPTION} (env ${envNameOf(TIMEOUT_OPTION)}); 0 = no limit`,
    );
  }
}
