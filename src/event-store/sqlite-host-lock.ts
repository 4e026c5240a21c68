import type { QueryRunner } from 'typeorm';

/** What the host lock uses of a better-sqlite3 `Database`. */
interface SqliteHandle {
  exec(sql: string): unknown;
  close(): unknown;
  readonly inTransaction: boolean;
}

/** better-sqlite3's `Database` constructor, as TypeORM's driver loaded it. */
type SqliteLibrary = new (file: string, options: { timeout: number }) => SqliteHandle;

/**
 * The SQLite writer's OS lock: a write lock on a file beside the database
 * (`<database>-commitbus-writer`), taken through SQLite on a connection of
 * its own (`BEGIN IMMEDIATE`, never waiting) and held while this process is
 * the writer. The kernel frees it the moment the process dies, `kill -9`
 * included, so a stand-by on the same machine knows at once that a lease
 * the dead writer left is void. Within one process SQLite itself keeps two
 * connections to the file apart, so two stores in one process exclude each
 * other too. A process that is alive but frozen keeps it.
 */
export class SqliteHostLock {
  private handle: SqliteHandle | undefined;

  constructor(
    /** The lock file's path. */
    readonly path: string,
    private readonly library: SqliteLibrary,
  ) {}

  /** Takes the lock when no process holds it; true while this process does. Never waits. */
  tryHold(): boolean {
    if (this.handle?.inTransaction === true) return true;
    this.handle ??= new this.library(this.path, { timeout: 0 });
    try {
      this.handle.exec('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return false;
      throw error;
    }
  }

  /** Lets the lock go (closing the connection ends its transaction). */
  release(): void {
    const handle = this.handle;
    this.handle = undefined;
    try {
      handle?.close();
    } catch {
      // Closing never fails on an open connection; a closed one holds nothing.
    }
  }
}

/**
 * The host lock for the database file of a SQLite connection, or `undefined`
 * for one with no file (`:memory:`, a temporary database): one process
 * only, where the lease row alone decides.
 */
export async function sqliteHostLock(runner: QueryRunner): Promise<SqliteHostLock | undefined> {
  const file = await sqliteFile(runner);
  const library = (runner.connection.driver as unknown as { sqlite?: unknown }).sqlite;
  if (file === undefined || typeof library !== 'function') return undefined;
  return new SqliteHostLock(`${file}-commitbus-writer`, library as SqliteLibrary);
}

/** The absolute path of the main database file of a SQLite connection or DataSource; `undefined` without one. */
export async function sqliteFile(on: { query(sql: string): Promise<unknown> }): Promise<string | undefined> {
  const rows = (await on.query('PRAGMA database_list')) as { name: string; file: string }[];
  const file = rows.find((row) => row.name === 'main')?.file;
  return file === undefined || file === '' ? undefined : file;
}
