import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * An operation or event was registered on a unit of work that is already
 * committing, committed or rolled back (kept past its callback, or used from
 * a commit hook).
 */
export class UnitOfWorkClosedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNIT_OF_WORK_CLOSED';

  /** @param phase - where the unit of work is: `committing`, `committed`, `rolled back`. */
  constructor(readonly phase: string) {
    super(
      `cannot register on this unit of work: it is already ${phase}. Register operations and events inside the unit of work's callback, or start a new one (withUnitOfWork, uowManager.run) for work after it`,
    );
  }
}
