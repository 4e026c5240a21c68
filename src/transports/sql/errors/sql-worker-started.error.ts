import { CommitbusError } from '../../../support/commitbus-error.js';

/** `startWorker()` was called a second time on one bus of the SQL transport. */
export class SqlWorkerStartedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQL_WORKER_STARTED';

  constructor() {
    super(
      'this bus has started its worker: call startWorker() once per bus; for more workers, start them in other processes (or other buses) on the same database',
    );
  }
}
