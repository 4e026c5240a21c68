import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { SqliteDriverMissingError } from './errors/sqlite-driver-missing.error.js';
import { SqliteOpenFailedError } from './errors/sqlite-open-failed.error.js';
import { SQL_TRANSPORT_ENTITIES, SQL_TRANSPORT_MIGRATIONS } from './schema/sql-tables.js';
import type { SqlDbOwner } from './sql-db.js';

/** SQLite's name for a database in this connection's memory. */
export const SQLITE_IN_MEMORY = ':memory:';

/**
 * A DataSource the SQL transport made itself and so opens and closes
 * itself (`sqliteTransport()`), where the application's DataSource would
 * be opened and closed by the application.
 */
export interface SqlDataSourceOwner extends SqlDbOwner {
  /** `true` when the database lives in this process's memory: no other process sees it. */
  readonly inProcess: boolean;
  /** Opens the DataSource and creates the transport's tables, once; a failed open is tried again at the next call. */
  open(): Promise<void>;
  /** Destroys the DataSource (its connection, and an in-memory database with it); safe to call twice. */
  close(): Promise<void>;
}

/** Whether `dataSource` is SQLite in this process's memory. */
export function isInMemory(dataSource: DataSource): boolean {
  const { type, database } = dataSource.options as { type: string; database?: unknown };
  return type === 'better-sqlite3' && (database === SQLITE_IN_MEMORY || database === '');
}

/** Throws {@link SqliteDriverMissingError} unless `better-sqlite3` is installed where commitbus is and loads. */
export function requireSqliteDriver(what: string): void {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('better-sqlite3');
  } catch {
    throw new SqliteDriverMissingError(what);
  }
  try {
    // Loaded now (TypeORM loads it at the first statement anyway): a broken native build is named here.
    require('better-sqlite3');
  } catch (error) {
    throw new SqliteDriverMissingError(what, error);
  }
}

/** One database a transport of this process opened: its DataSource, shared by the transports on it. */
interface OpenDatabase {
  readonly dataSource: DataSource;
  /** Transports on it not closed yet; the last to close destroys it. */
  users: number;
  /** The open under way or done; cleared when it failed, so the next statement tries again. */
  opening: Promise<void> | undefined;
}

/** The files transports of this process have open, by absolute path. */
const openFiles = new Map<string, OpenDatabase>();

/**
 * A SQLite DataSource on `file` (WAL unless in memory, so processes on one
 * machine share the file) holding the SQL transport's tables only, created
 * by its migrations at the first {@link SqlDataSourceOwner.open}.
 *
 * Transports of one process on the same file share one DataSource, so its
 * transaction gate keeps them in turn: with a connection each, one would
 * wait for the other's write lock with the event loop blocked (better-sqlite3
 * waits synchronously), which the holder needs to finish, until SQLite's busy
 * timeout ends both (`SQLITE_BUSY`). Each database in memory is its own.
 */
export function ownedSqliteDataSource(file: string): { dataSource: DataSource; owner: SqlDataSourceOwner } {
  const inProcess = file === SQLITE_IN_MEMORY;
  const key = inProcess ? undefined : resolve(file);
  const database = (key === undefined ? undefined : openFiles.get(key)) ?? {
    dataSource: new DataSource({
      type: 'better-sqlite3',
      database: file,
      entities: [...SQL_TRANSPORT_ENTITIES],
      migrations: [...SQL_TRANSPORT_MIGRATIONS],
      migrationsTableName: 'commitbus_sql_migrations',
      enableWAL: !inProcess,
    }),
    users: 0,
    opening: undefined,
  };
  database.users++;
  if (key !== undefined) openFiles.set(key, database);
  const { dataSource } = database;
  let closed = false;
  const open = async (): Promise<void> => {
    try {
      if (!dataSource.isInitialized) await dataSource.initialize();
      await migrate(dataSource, file);
    } catch (error) {
      database.opening = undefined;
      throw new SqliteOpenFailedError(file, error);
    }
  };
  return {
    dataSource,
    owner: {
      inProcess,
      open: () => {
        if (closed) return Promise.resolve();
        database.opening ??= open();
        return database.opening;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        if (--database.users > 0) return;
        if (key !== undefined && openFiles.get(key) === database) openFiles.delete(key);
        await database.opening?.catch(() => {});
        if (dataSource.isInitialized) await dataSource.destroy();
      },
    },
  };
}

/**
 * Runs the transport's pending migrations inside one `BEGIN IMMEDIATE`
 * transaction on a file: processes opening a new file at once (a publisher
 * and its workers started together) take turns on its write lock, so the
 * second finds the tables the first made instead of failing on `table ...
 * already exists` (TypeORM's own transaction begins deferred, after it
 * created its migrations table: that races).
 */
async function migrate(dataSource: DataSource, file: string): Promise<void> {
  if (file === SQLITE_IN_MEMORY) await dataSource.runMigrations({ transaction: 'all' });
  else await migrateLocked(dataSource);
}

/** The pending migrations, holding the file's write lock from before TypeORM looks for its table. */
async function migrateLocked(dataSource: DataSource): Promise<void> {
  await dataSource.query('BEGIN IMMEDIATE');
  try {
    await dataSource.runMigrations({ transaction: 'none' });
    await dataSource.query('COMMIT');
  } catch (error) {
    // A failed COMMIT leaves SQLite's transaction open: end it too.
    await dataSource.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
