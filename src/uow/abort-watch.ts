import type { QueryRunner } from 'typeorm';
import { describeError } from '../support/logger.js';
import { TransactionAbortedError } from './errors/transaction-aborted.error.js';

// PostgreSQL's code for "current transaction is aborted, commands ignored until end of transaction block".
const IN_FAILED_TRANSACTION = '25P02';

/** What node-postgres tells of its connection's transaction: `T` in one, `E` in a failed one, `I` idle. */
interface PgConnection {
  getTransactionStatus(): string | null;
}

interface Failure {
  readonly statement: string;
  readonly error: unknown;
}

/**
 * Watches one PostgreSQL transaction for the statement that aborted it. A
 * failed statement aborts the whole transaction (unless a savepoint is rolled
 * back to), and PostgreSQL then answers COMMIT with ROLLBACK, without an
 * error; node-postgres reads the transaction's state from every reply, so
 * checking it costs no round trip.
 */
export class AbortWatch {
  private failure: Failure | undefined;

  private constructor(private readonly connection: PgConnection) {}

  /**
   * Watches `runner`'s statements, if it runs on node-postgres (elsewhere a
   * failed statement does not abort the transaction: `undefined`).
   */
  static async on(runner: QueryRunner): Promise<AbortWatch | undefined> {
    const connection: unknown = await runner.connect();
    if (!isPgConnection(connection)) return undefined;
    const watch = new AbortWatch(connection);
    const query = runner.query.bind(runner);
    runner.query = (async (sql: string, parameters?: unknown[], structured?: boolean) => {
      try {
        const result = await query(sql, parameters, structured as true);
        if (watch.connection.getTransactionStatus() !== 'E') watch.failure = undefined;
        return result;
      } catch (error) {
        // Only the server's errors abort the transaction (not, say, a value pg could not serialize).
        if (isServerError(error)) watch.failure ??= { statement: sql, error };
        throw error;
      }
    }) as QueryRunner['query'];
    return watch;
  }

  /**
   * Whether the transaction is aborted: COMMIT would roll it back. A failed
   * statement's error reaches the caller before the server's next
   * ReadyForQuery (which carries the state), so a failure not undone since
   * (by a savepoint rolled back to) counts as well.
   */
  aborted(): boolean {
    return this.failure !== undefined || this.connection.getTransactionStatus() === 'E';
  }

  /** Throws {@link TransactionAbortedError} naming the first failed statement if the transaction is aborted. */
  throwIfAborted(): void {
    if (this.aborted()) throw this.abortedError();
  }

  /**
   * What the unit of work failed with: `error`, or the abort it stands for
   * when it is only a later statement refused in the aborted transaction.
   */
  explain(error: unknown): unknown {
    if (error instanceof TransactionAbortedError || this.failure === undefined) return error;
    const { driverError } = error as { driverError?: { code?: unknown } };
    return driverError?.code === IN_FAILED_TRANSACTION ? this.abortedError() : error;
  }

  private abortedError(): TransactionAbortedError {
    const { statement, error } = this.failure ?? { statement: '(unknown)', error: undefined };
    return new TransactionAbortedError(statement, describeError(error).message, { cause: error });
  }
}

/** Whether the server refused the statement: a SQLSTATE `code` on the driver's error. */
function isServerError(error: unknown): boolean {
  const { driverError } = error as { driverError?: { code?: unknown } };
  return typeof driverError?.code === 'string' && /^[0-9A-Z]{5}$/.test(driverError.code);
}

function isPgConnection(value: unknown): value is PgConnection {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { getTransactionStatus?: unknown }).getTransactionStatus === 'function'
  );
}
