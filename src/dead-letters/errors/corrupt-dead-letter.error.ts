import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * A dead letter in the store that commitbus cannot read: not JSON, or JSON
 * without the fields of a letter (cut short by a hand edit, or written under
 * the bus's keys by another tool). `bus.deadLetters.list()` and `redrive()`
 * leave it out and log this error; `get(id)` throws it; purging it by id (or
 * with `'all'`) removes it.
 */
export class CorruptDeadLetterError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_CORRUPT_DEAD_LETTER';

  constructor(
    /** The id the letter is stored under. */
    readonly id: string,
    /** What is wrong with it. */
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(
      `dead letter ${JSON.stringify(id)} cannot be read (${problem}): list() and redrive() leave it out. Look at it in the store, then remove it with bus.deadLetters.purge(${JSON.stringify(id)})`,
      options,
    );
  }
}
