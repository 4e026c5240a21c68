import { CommitbusError } from '../../support/commitbus-error.js';

/** A rule target is malformed, or names a handler or handling key the bus does not have. */
export class RuleTargetError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_RULE_TARGET';

  constructor(message: string) {
    super(message);
  }
}
