import { CommitbusError } from '../../support/commitbus-error.js';

/** A dead-letter filter that would select every letter by accident (`{}`; `'all'` says so on purpose), or one with a field it lacks or cannot use (a `since` that is no Date, a `limit` below 1). */
export class DeadLetterFilterError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_DEAD_LETTER_FILTER';

  /** @param problem - what is wrong with the filter; by default, that it is empty. */
  constructor(problem?: string) {
    super(
      problem ??
        "an empty filter would select every dead letter: pass 'all' to mean that, or a filter with a field set ({ handler }, { kind }, ...)",
    );
  }
}
