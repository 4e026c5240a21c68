import { CommitbusError } from '../commitbus-error.js';

/** A page of the audit trail asked for wrongly: a `limit` that is not a whole number from 1, a `before` that is no id of the trail. */
export class OperatorActionQueryError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_OPERATOR_ACTION_QUERY';

  /** @param problem - what is wrong, and what to give instead. */
  constructor(problem: string) {
    super(`the audit trail cannot be read so: ${problem}`);
  }
}
