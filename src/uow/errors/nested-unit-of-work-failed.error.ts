import { CommitbusError } from '../../support/commitbus-error.js';
import { describeError } from '../../support/logger.js';

/**
 * A unit of work started inside another (which joined it: one transaction)
 * threw, and the outer code caught the error and went on. What the nested
 * code saw fail must not commit, and it cannot be kept apart from the rest of
 * the transaction, so the outer unit of work rolls back with this error
 * (`cause`: the nested unit of work's error): nothing commits, no event is sent.
 */
export class NestedUnitOfWorkFailedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_NESTED_UNIT_OF_WORK_FAILED';

  /** @param nested - what the nested unit of work threw. */
  constructor(nested: unknown) {
    super(
      `a unit of work started inside this one failed (${describeError(nested).message}) and its error was caught, so this unit of work rolled back: nothing of it committed and none of its events were sent. A nested unit of work joins the outermost one, so its work cannot be undone apart from the rest. Handle the failure inside the nested unit of work, rethrow it, or run that work in a unit of work of its own after this one`,
      { cause: nested },
    );
  }
}
