import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * More than one of a unit of work's hooks failed (operations' `afterCommit`
 * or `afterRollback`, or the rollback hooks after the work itself failed).
 * `errors` keeps each; `cause` is the first (the work's own error when it
 * failed).
 */
export class UnitOfWorkHooksError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNIT_OF_WORK_HOOKS';

  /**
   * @param what - what failed, e.g. `3 unit-of-work hooks failed`.
   * @param errors - every failure, in order.
   */
  constructor(
    what: string,
    readonly errors: readonly unknown[],
    options?: ErrorOptions,
  ) {
    super(`${what}: see errors (each failure) and cause; fix the failing operation hooks`, {
      cause: errors[0],
      ...options,
    });
  }
}
