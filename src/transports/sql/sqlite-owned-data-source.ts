import { createRequire } from 'node:module';
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

/**
 * A SQLite DataSource on `file` (WAL unless in memory, so processes on one
 * machine share the file) holding the SQL transport's tables only, created
 * by its migrations at the first {@link SqlDataSourceOwner.open}.
 */
export function ownedSqliteDataSource(file: string): { dataSource: DataSource; owner: SqlDataSourceOwner } {
  const inProcess = file === SQLITE_IN_MEMORY;
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: file,
    entities: [...SQL_TRANSPORT_ENTITIES],
    migrations: [...SQL_TRANSPORT_MIGRATIONS],
    migrationsTableName: 'commitbus_sql_migrations',
    enableWAL: !inProcess,
  });
  let opening: Promise<void> | undefined;
  let closed = false;
  const open = async (): Promise<void> => {
    try {
      if (!dataSource.isInitialized) await dataSource.initialize();
      await dataSource.runMigrations({ transaction: 'all' });
    } catch (error) {
      opening = undefined;
      throw new SqliteOpenFailedError(file, error);
    }
  };
  return {
    dataSource,
    owner: {
      inProcess,
      open: () => {
        if (closed) return Promise.resolve();
        opening ??= open();
        return opening;
      },
      close: async () => {
        closed = true;
        await opening?.catch(() => {});
        if (dataSource.isInitialized) await dataSource.destroy();
      },
    },
  };
}
