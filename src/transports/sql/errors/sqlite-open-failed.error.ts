import { CommitbusError } from '../../../support/commitbus-error.js';

/** `sqliteTransport({ file })` could not open its database file or create its tables there. */
export class SqliteOpenFailedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQLITE_OPEN_FAILED';

  /**
   * @param file - the database file (or `:memory:`).
   * @param cause - what SQLite or TypeORM threw.
   */
  constructor(file: string, cause: unknown) {
    super(
      `the SQLite transport could not open ${file} and create its tables there: ${cause instanceof Error ? cause.message : String(cause)}. Check that its folder exists and is writable, and that no other program holds the file locked`,
      { cause },
    );
  }
}
