import { CommitbusError } from '../../../support/commitbus-error.js';

/** `startWorker()` was called a second time on a memory bus, which runs one worker in its process. */
export class MemoryWorkerStartedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_MEMORY_WORKER_STARTED';

  constructor() {
    super(
      'a memory bus runs one worker and it has started: call startWorker() once per bus, or use the Redis transport for workers in many processes',
    );
  }
}
