import { CommitbusError } from '../../support/commitbus-error.js';

/** A reducer returned something the apply step cannot write. */
export class MalformedResultError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_MALFORMED_REDUCER_RESULT';

  constructor(
    readonly model: string,
    readonly type: string,
    problem: string,
  ) {
    super(
      `the reducer of model "${model}" for "${type}" returned a malformed result: ${problem}. Return undefined or { set, ins, upd, sav, rm, events } with rows carrying their primary columns`,
    );
  }
}
