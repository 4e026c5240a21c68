import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { type Logger, silentLogger } from '../../support/logger.js';
import { readWithin } from '../../support/read-within.js';
import { holdsTransactionGate, withTransactionGate } from '../../uow/transaction-gate.js';
import { SqlDataSourceNotInitializedError } from './errors/sql-data-source-not-initialized.error.js';
import { SqlDialectUnsupportedError } from './errors/sql-dialect-unsupported.error.js';
import { SqliteTransportClosedError } from './errors/sqlite-transport-closed.error.js';
import { asUnavailable } from './sql-connection-failure.js';
import { guardPgPool } from './sql-pg-pool-guard.js';
import { toPostgresPlaceholders } from './sql-placeholders.js';

/** The databases the SQL transport runs on. */
export type SqlDialect = 'postgres' | 'sqlite';

/**
 * Runs the SQL transport's statements, one at a time, written with `?`
 * placeholders (the runner turns them into `$n` on PostgreSQL). Inside
 * {@link SqlDb.transaction} every statement runs in that transaction;
 * outside, each statement commits on its own.
 */
export interface SqlRunner {
  /** The database the statements go to: for the few places where the SQL differs. */
  readonly dialect: SqlDialect;
  /** Rows of a `SELECT`, or of a statement with `RETURNING` (PostgreSQL and SQLite 3.35+ both have it). */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a statement without `RETURNING`; resolves to how many rows it changed. */
  execute(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** How a transaction begins, commits and rolls back: on its own, or as a savepoint of the caller's. */
interface TransactionStatements {
  readonly begin: string;
  readonly commit: string;
  readonly rollback: string;
}

/** A DataSource the transport made itself (`sqliteTransport()`): it opens and closes it. */
export interface SqlDbOwner {
  /** Opens the DataSource and creates the transport's tables, once (a failed open is tried again). */
  open(): Promise<void>;
  /** Destroys the DataSource. */
  close(): Promise<void>;
}

/** What SQLite's `better-sqlite3` driver is called in TypeORM. */
const SQLITE_TYPES: ReadonlySet<string> = new Set(['better-sqlite3']);

/** The dialect of `dataSource`, or {@link SqlDialectUnsupportedError}. */
export function dialectOf(dataSource: DataSource): SqlDialect {
  const type = String(dataSource.options.type);
  if (type === 'postgres') return 'postgres';
  if (SQLITE_TYPES.has(type)) return 'sqlite';
  throw new SqlDialectUnsupportedError(type);
}

/** One statement on a TypeORM query runner, with the dialect's placeholders and a structured result. */
async function runOn(
  runner: QueryRunner,
  dialect: SqlDialect,
  sql: string,
  params: readonly unknown[],
): Promise<{ records: unknown[]; affected: number }> {
  const text = dialect === 'postgres' ? toPostgresPlaceholders(sql) : sql;
  const result = (await runner.query(text, [...params], true)) as { records?: unknown[]; affected?: number };
  const records = Array.isArray(result.records) ? result.records : [];
  return { records, affected: result.affected ?? records.length };
}

/** A {@link SqlRunner} over one TypeORM query runner (a transaction's, or the unit of work's). */
function runnerOf(queryRunner: QueryRunner, dialect: SqlDialect): SqlRunner {
  return {
    dialect,
    query: async <T>(sql: string, params: readonly unknown[] = []) =>
      (await runOn(queryRunner, dialect, sql, params)).records as T[],
    execute: async (sql, params = []) => (await runOn(queryRunner, dialect, sql, params)).affected,
  };
}

/**
 * The SQL transport's handle on the application's TypeORM DataSource
 * (PostgreSQL, or SQLite through `better-sqlite3`). It opens nothing at
 * construction: the DataSource may be initialized later, before the first
 * statement ({@link SqlDataSourceNotInitializedError} otherwise).
 *
 * On SQLite the DataSource has one connection that every transaction
 * shares, so every statement and transaction here takes the unit of work's
 * transaction gate (`uow/transaction-gate.ts`): a statement of a drain
 * never lands inside an application's open transaction. Called by work that
 * holds the gate already (the outbox relay publishing the rows it read in
 * its transaction), statements run in the holder's transaction, a
 * transaction as a savepoint of it, instead of waiting for the gate the
 * caller holds.
 *
 * Times the transport compares (leases, due times) are read from the
 * database's clock ({@link SqlDb.now}), so workers on machines whose clocks
 * differ agree on them.
 *
 * A statement or transaction that fails because the database is out of
 * reach (refused, terminated, timed out) rejects with a
 * `TransportUnavailableError` naming it; a PostgreSQL connection that dies
 * checked out never crashes the process (`guardPgPool`).
 */
export class SqlDb implements SqlRunner {
  /** The database the statements go to. */
  readonly dialect: SqlDialect;
  /**
   * The database's clock in epoch milliseconds, as an SQL expression to
   * write into statements (`locked_until < ${db.now}`).
   */
  readonly now: string;

  /** Set by {@link SqlDb.close}: an owned DataSource takes no new statement. */
  private closing = false;
  /** Statements and transactions under way on an owned DataSource, for {@link SqlDb.close} to wait for. */
  private readonly underWay = new Set<Promise<unknown>>();

  /**
   * @param owner - for a DataSource the transport owns (`sqliteTransport()`):
   * opened (initialize, migrations) before the first statement, every
   * statement and transaction awaiting it; closed by {@link SqlDb.close}.
   * Used after that, such a DataSource is {@link SqliteTransportClosedError},
   * not a request to initialize a DataSource the application never had.
   */
  constructor(
    readonly dataSource: DataSource,
    private readonly logger: Logger = silentLogger,
    private readonly owner?: SqlDbOwner,
  ) {
    this.dialect = dialectOf(dataSource);
    this.now =
      this.dialect === 'postgres'
        ? '(floor(extract(epoch from statement_timestamp()) * 1000)::bigint)'
        : "(CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))";
  }

  /**
   * `name` as statements write it: qualified by the DataSource's `schema`
   * on PostgreSQL when it names one (raw statements do not see it otherwise).
   */
  table(name: string): string {
    const schema = (this.dataSource.options as { schema?: string }).schema;
    if (this.dialect !== 'postgres' || schema === undefined || schema === '') return name;
    return `"${schema.replace(/"/g, '""')}"."${name}"`;
  }

  /** Where the data lives, for errors and logs: host, port and database, never a password. */
  where(): string {
    const options = this.dataSource.options as {
      host?: string;
      port?: number;
      database?: unknown;
      url?: string;
    };
    if (this.dialect === 'sqlite') return `SQLite ${String(options.database ?? ':memory:')}`;
    const fromUrl = urlParts(options.url);
    const host = options.host ?? fromUrl.host ?? 'localhost';
    const port = options.port ?? fromUrl.port ?? 5432;
    return `PostgreSQL ${host}:${port}/${String(options.database ?? fromUrl.database ?? '')}`;
  }

  async query<T = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.alone(sql, async (runner) => runner.query<T>(sql, params));
  }

  async execute(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.alone(sql, async (runner) => runner.execute(sql, params));
  }

  /**
   * Runs `fn` in one transaction (`BEGIN IMMEDIATE` on SQLite, so two
   * processes on one file never deadlock upgrading a read to a write):
   * committed when `fn` resolves, rolled back when it throws.
   */
  async transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const nested = this.dialect === 'sqlite' && holdsTransactionGate(this.dataSource);
    const statements: TransactionStatements = nested
      ? {
          begin: 'SAVEPOINT commitbus_sql',
          commit: 'RELEASE commitbus_sql',
          rollback: 'ROLLBACK TO commitbus_sql',
        }
      : {
          begin: this.dialect === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN',
          commit: 'COMMIT',
          rollback: 'ROLLBACK',
        };
    return this.gated('run a transaction', async () => {
      const queryRunner = this.open('run a transaction');
      try {
        return await this.inTransaction(queryRunner, fn, statements, nested);
      } catch (error) {
        throw asUnavailable('run a transaction', this.where(), error);
      } finally {
        await queryRunner.release();
      }
    });
  }

  /**
   * `fn` between `begin` and `commit` on `queryRunner`; rolled back when it
   * throws or the commit fails (a savepoint also released).
   */
  private async inTransaction<T>(
    queryRunner: QueryRunner,
    fn: (tx: SqlRunner) => Promise<T>,
    { begin, commit, rollback }: TransactionStatements,
    nested: boolean,
  ): Promise<T> {
    await queryRunner.connect();
    await queryRunner.query(begin);
    let result: T;
    try {
      result = await fn(runnerOf(queryRunner, this.dialect));
    } catch (error) {
      await queryRunner.query(rollback).catch(() => {});
      if (nested) await queryRunner.query(commit).catch(() => {});
      throw error;
    }
    try {
      await queryRunner.query(commit);
    } catch (error) {
      // SQLite keeps a transaction whose COMMIT failed (a deferred constraint) open on the
      // connection: end it, or every later BEGIN on that connection fails.
      await queryRunner.query(rollback).catch(() => {});
      if (nested) await queryRunner.query(commit).catch(() => {});
      throw error;
    }
    return result;
  }

  /**
   * The statements of a transaction someone else holds (a unit of work's
   * `EntityManager`): they run in it and commit or roll back with it. Takes
   * no gate: the holder has it.
   */
  within(manager: EntityManager): SqlRunner {
    const queryRunner = manager.queryRunner;
    if (queryRunner === undefined) return this;
    return runnerOf(queryRunner, this.dialect);
  }

  /** A statement on its own connection, committed on its own. */
  private async alone<T>(sql: string, fn: (runner: SqlRunner) => Promise<T>): Promise<T> {
    const action = `run ${sql.trim().split(/\s+/, 1)[0] ?? 'a statement'}`;
    return this.gated(action, async () => {
      const queryRunner = this.open(action);
      try {
        return await fn(runnerOf(queryRunner, this.dialect));
      } catch (error) {
        throw asUnavailable(action, this.where(), error);
      } finally {
        await queryRunner.release();
      }
    });
  }

  /**
   * Closes a DataSource the transport owns once the statements and
   * transactions under way (and the work {@link SqlDb.track}ed) have
   * settled, those they lead to included; a statement begun after that is
   * refused ({@link SqliteTransportClosedError}). Waits `timeoutMs` at
   * most: a statement that never settles does not hold the close. Does
   * nothing on the application's DataSource, which the application destroys.
   */
  async close(timeoutMs = 30_000): Promise<void> {
    if (this.owner === undefined) return;
    const deadline = Date.now() + timeoutMs;
    while (this.underWay.size > 0 && Date.now() < deadline) {
      await readWithin(() => Promise.allSettled([...this.underWay]), deadline - Date.now());
    }
    this.closing = true;
    await this.owner.close();
  }

  /**
   * Counts `work` as under way until it settles, so {@link SqlDb.close}
   * waits for it (an append waiting for the next group transaction).
   */
  track<T>(work: Promise<T>): Promise<T> {
    if (this.owner === undefined) return work;
    const settled: Promise<unknown> = work.then(
      () => this.underWay.delete(settled),
      () => this.underWay.delete(settled),
    );
    this.underWay.add(settled);
    return work;
  }

  /**
   * On SQLite, `fn` under the gate, unless this context holds it already
   * (then it owns the connection, and it is part of work under way).
   */
  private gated<T>(action: string, fn: () => Promise<T>): Promise<T> {
    const holds = this.dialect === 'sqlite' && holdsTransactionGate(this.dataSource);
    if (this.owner === undefined || holds) return holds ? fn() : this.run(fn);
    if (this.closing) return Promise.reject(new SqliteTransportClosedError(action, this.where()));
    return this.track(this.owner.open().then(() => this.run(fn)));
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.dialect !== 'sqlite') return fn();
    return withTransactionGate(this.dataSource, fn);
  }

  private open(action: string): QueryRunner {
    if (!this.dataSource.isInitialized) {
      throw this.owner !== undefined
        ? new SqliteTransportClosedError(action, this.where())
        : new SqlDataSourceNotInitializedError(action);
    }
    if (this.dialect === 'postgres') guardPgPool(this.dataSource, this.logger);
    return this.dataSource.createQueryRunner();
  }
}

/** Host, port and database of a `postgres://` URL (TypeORM's `url` option), never its password; none when absent or unreadable. */
function urlParts(url: string | undefined): { host?: string; port?: number; database?: string } {
  if (url === undefined) return {};
  try {
    const parsed = new URL(url);
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    return {
      ...(parsed.hostname === '' ? {} : { host: parsed.hostname }),
      ...(parsed.port === '' ? {} : { port: Number(parsed.port) }),
      ...(database === '' ? {} : { database }),
    };
  } catch {
    return {};
  }
}
