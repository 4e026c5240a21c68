import { CommitbusError } from '../../../support/commitbus-error.js';

/** The SQL transport was used before its DataSource was initialized, or after it was destroyed. */
export class SqlDataSourceNotInitializedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQL_DATA_SOURCE_NOT_INITIALIZED';

  /** @param action - what could not be done ("publish 3 event(s)"). */
  constructor(action: string) {
    super(
      `could not ${action}: the SQL transport's DataSource is not initialized. Call await dataSource.initialize() before the bus publishes or starts a worker, and close the bus before dataSource.destroy()`,
    );
  }
}
