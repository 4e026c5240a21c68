import { CommitbusError } from '../../support/commitbus-error.js';

/** `@EventType(key, options)` got options it cannot use (`orderBy` not a function, a bad `afterLastAttempt`). */
export class InvalidEventTypeOptionsError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_INVALID_EVENT_TYPE_OPTIONS';

  /**
   * @param handlingKey - the decorated class's key.
   * @param problem - what is wrong and what to do.
   */
  constructor(
    readonly handlingKey: string,
    problem: string,
  ) {
    super(`@EventType('${handlingKey}'): ${problem}`);
  }
}
