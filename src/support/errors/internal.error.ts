import { CommitbusError } from '../commitbus-error.js';

/**
 * A check inside commitbus that only a bug in commitbus can fail (a state it
 * never makes, a script spec it never declares). Nothing you did or
 * configured causes it: report it with the message and stack.
 */
export class InternalError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_INTERNAL';

  constructor(what: string, options?: ErrorOptions) {
    super(
      `commitbus bug: ${what}. Nothing you configured causes this: report it to commitbus's maintainers with this message and stack`,
      options,
    );
  }
}
