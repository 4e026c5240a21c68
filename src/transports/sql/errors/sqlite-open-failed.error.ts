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
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      file === ':memory:'
        ? `the SQLite transport could not open its database in this process's memory and create its tables there: ${why}`
        : `the SQLite transport could not open ${file} and create its tables there: ${why}. Check that its folder exists and is writable, and that no other program holds the file locked`,
      { cause },
    );
  }
}
