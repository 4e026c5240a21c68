import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * On SQLite (one connection per DataSource), work that needs the connection
 * to itself was started from inside a transaction that holds it: it would
 * wait for itself forever.
 */
export class NestedTransactionError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_NESTED_SQLITE_TRANSACTION';

  constructor() {
    super(
      'a transaction (a unit of work, or an event store read or write) was started on a SQLite DataSource from inside another one on it: SQLite has one connection, so it would wait for itself. Use the manager of the transaction you are in (uow.manager, ctx.manager), or start the work after it ends',
    );
  }
}
