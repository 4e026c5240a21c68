import { CommitbusError } from '../../support/commitbus-error.js';

// Long statements (a bulk INSERT) are cut: the start names the table and the columns.
const STATEMENT_CHARS = 200;

/**
 * The database rolled back a unit of work's transaction although nothing
 * reached the unit of work: a statement failed inside it and its error was
 * caught. PostgreSQL aborts a transaction at its first failed statement
 * (every later one fails with `25P02`) and answers COMMIT with ROLLBACK. The
 * unit of work ends as a rollback (rollback hooks, no event); `statement` and
 * `cause` are the statement that failed first and its error.
 */
export class TransactionAbortedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_TRANSACTION_ABORTED';

  /** The statement that failed first (its first 200 characters; parameters are not included). */
  readonly statement: string;

  /**
   * @param statement - the SQL of the statement that failed first.
   * @param failure - its error's message.
   */
  constructor(statement: string, failure: string, options?: ErrorOptions) {
    const short = statement.length > STATEMENT_CHARS ? `${statement.slice(0, STATEMENT_CHARS)}…` : statement;
    super(
      `the database rolled back this unit of work's transaction: a statement failed inside it and its error was caught, and PostgreSQL aborts a transaction at its first failed statement. The first failed statement: ${short} (${failure}). Let the error end the unit of work, or run the statement in a savepoint (await uow.manager.transaction(async (manager) => ...)) to carry on after it`,
      options,
    );
    this.statement = short;
  }
}
