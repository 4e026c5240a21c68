import { CommitbusError } from '../../support/commitbus-error.js';

/** A bus was used (`publish`, `startWorker`) after `close()` began. */
export class BusClosedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_BUS_CLOSED';

  /** @param action - what was refused, e.g. `publish`. */
  constructor(readonly action: string) {
    super(
      `cannot ${action}: this bus was closed. Close a bus last, after the work that uses it (bus.close() at shutdown), or create a new one with createEventBus`,
    );
  }
}
