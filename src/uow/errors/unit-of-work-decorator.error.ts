import { CommitbusError } from '../../support/commitbus-error.js';

/** `@unitOfWork()` was put on something it cannot wrap: not a method, or a method without a parameter for the unit of work. */
export class UnitOfWorkDecoratorError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNIT_OF_WORK_DECORATOR';

  /**
   * @param member - the decorated member's name.
   * @param problem - what is wrong and what to do.
   */
  constructor(member: string, problem: string) {
    super(`@unitOfWork() on ${member}: ${problem}`);
  }
}
