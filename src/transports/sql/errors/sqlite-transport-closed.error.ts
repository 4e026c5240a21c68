import { CommitbusError } from '../../../support/commitbus-error.js';

/**
 * A bus on `sqliteTransport()` (a bus given no transport, `createTestBus`)
 * was used after `bus.close()`, which closed the SQLite database the
 * transport had opened for itself.
 */
export class SqliteTransportClosedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQLITE_TRANSPORT_CLOSED';

  /**
   * @param action - what could not be done (`run SELECT`).
   * @param where - the database (`SQLite ./events.sqlite`).
   */
  constructor(action: string, where: string) {
    super(
      `could not ${action}: this bus was closed, and with it the ${where} database its SQLite transport opened. Close a bus last, after the work that uses it (bus.close() at shutdown), or create a new bus (a new sqliteTransport({ file }) on the same file sees what this one left)`,
    );
  }
}
