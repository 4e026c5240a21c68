import type { QueryRunner } from 'typeorm';
import { describeError } from '../support/logger.js';
import { TransactionAbortedError } from './errors/transaction-aborted.error.js';

// PostgreSQL's code for "current transaction is aborted, commands ignored until end of transaction block".
const IN_FAILED_TRANSACTION = '25P02';

/**
 * A node-postgres client. `getTransactionStatus` (pg 8.2x on; `T` in a
 * transaction, `E` in a failed one, `I` idle) is missing on older pg, and
 * the native client's returns `null` or throws, depending on pg-native.
 */
interface PgConnection {
  getTransactionStatus?(): string | null;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  removeListener(event: 'error', listener: (error: unknown) => void): unknown;
}

// The watch of each runner watched, so that a runner is wrapped once however many transactions it runs.
const WATCHES = new WeakMap<QueryRunner, AbortWatch>();

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
  // The query function this watch put on its runner.
  private wrapper: QueryRunner['query'] | undefined;
  // What the connection failed with between statements (the server ended it): TypeORM then releases it.
  private lost: unknown;
  private readonly onLost = (error: unknown) => {
    this.lost ??= error;
  };

  private constructor(private readonly connection: PgConnection) {
    connection.on('error', this.onLost);
  }

  // For the runner's next transaction: nothing failed yet, listening again.
  private restart(): this {
    this.failure = undefined;
    this.lost = undefined;
    this.stop();
    this.connection.on('error', this.onLost);
    return this;
  }

  /** Stops watching; call before the connection goes back to the pool. */
  stop(): void {
    this.connection.removeListener('error', this.onLost);
  }

  /**
   * Watches `runner`'s statements, if it runs on PostgreSQL (elsewhere a
   * failed statement does not abort the transaction: `undefined`).
   */
  static async on(runner: QueryRunner): Promise<AbortWatch | undefined> {
    if (runner.connection.driver.options.type !== 'postgres') return undefined;
    const connection: unknown = await runner.connect();
    if (!isPgConnection(connection)) return undefined;
    // A runner that runs one transaction after another (the event store's) keeps one watch, and
    // its query is wrapped again only if something put another in place (the store's batch state).
    const watch = WATCHES.get(runner)?.restart() ?? new AbortWatch(connection);
    WATCHES.set(runner, watch);
    if (runner.query !== watch.wrapper) watch.wrap(runner);
    return watch;
  }

  // Routes `runner`'s statements through this watch: a server error is a failure, a later success undoes it.
  private wrap(runner: QueryRunner): void {
    const query = runner.query.bind(runner);
    runner.query = (async (sql: string, parameters?: unknown[], structured?: boolean) => {
      try {
        const result = await query(sql, parameters, structured as true);
        if (this.status() !== 'E') this.failure = undefined;
        return result;
      } catch (error) {
        // Only the server's errors abort the transaction (not, say, a value pg could not serialize).
        if (isServerError(error)) this.failure ??= { statement: sql, error };
        throw error;
      }
    }) as QueryRunner['query'];
    this.wrapper = runner.query;
  }

  /**
   * Whether the transaction is aborted: COMMIT would roll it back. A failed
   * statement's error reaches the caller before the server's next
   * ReadyForQuery (which carries the state), so a failure not undone since
   * (by a savepoint rolled back to) counts as well.
   */
  aborted(): boolean {
    return this.failure !== undefined || this.status() === 'E';
  }

  // The state of the last ReadyForQuery, `null` where pg cannot tell: the failures seen still count.
  private status(): string | null {
    try {
      return this.connection.getTransactionStatus?.() ?? null;
    } catch {
      return null;
    }
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
    // TypeORM's "query runner already released" hides why: the connection's own error says it.
    if (this.lost !== undefined && isReleasedError(error)) return this.lost;
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

/** TypeORM's errors for a query on a connection it released (as it does when the connection fails). */
function isReleasedError(error: unknown): boolean {
  const { name } = error as { name?: unknown };
  return name === 'QueryRunnerAlreadyReleasedError' || name === 'QueryRunnerProviderAlreadyReleasedError';
}

function isPgConnection(value: unknown): value is PgConnection {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { on?: unknown }).on === 'function' &&
    typeof (value as { removeListener?: unknown }).removeListener === 'function'
  );
}
