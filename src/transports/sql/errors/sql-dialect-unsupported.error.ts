import { CommitbusError } from '../../../support/commitbus-error.js';

/** `sqlTransport({ dataSource })` was given a DataSource of a database it does not run on. */
export class SqlDialectUnsupportedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQL_DIALECT_UNSUPPORTED';

  /** @param type - the DataSource's `options.type`. */
  constructor(type: string) {
    super(
      `the SQL transport runs on PostgreSQL (type 'postgres') and SQLite (type 'better-sqlite3'); this DataSource is of type '${type}'. Use the Redis transport for other databases`,
    );
  }
}
