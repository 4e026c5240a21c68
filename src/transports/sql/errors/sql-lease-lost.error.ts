import { CommitbusError } from '../../../support/commitbus-error.js';

/**
 * A worker's claim on a handler job was superseded: it ran past its lease
 * (`handlers.lockDurationMs`) and another worker claimed the job, so what
 * this run would have written of the job (a dead letter) is left to that
 * worker.
 */
export class SqlLeaseLostError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQL_LEASE_LOST';

  constructor(readonly jobId: string) {
    super(
      `handler job ${JSON.stringify(jobId)} was claimed by another worker after this worker's lease ran out; this run's outcome is dropped and the other worker's stands. If this happens often, raise handlers.lockDurationMs above your handlers' longest run or find what blocks the event loop`,
    );
  }
}
