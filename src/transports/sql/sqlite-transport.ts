import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import { ConfigError } from '../../config/errors/config.error.js';
import type { Logger } from '../../support/logger.js';
import { SqlTransport } from './sql.transport.js';
import { SQL_POLL_MS_RANGE } from './sql-transport-options.js';
import { ownedSqliteDataSource, requireSqliteDriver, SQLITE_IN_MEMORY } from './sqlite-owned-data-source.js';

/** Options of {@link sqliteTransport}. */
export interface SqliteTransportOptions {
  /**
   * The SQLite database file (created with its folder's permissions if
   * missing, in WAL mode so processes on this machine share it), or
   * `':memory:'` for a database in this process's memory that nothing
   * survives and no other process sees. A path, not a `file:` URI
   * (refused: better-sqlite3 would take it as a file name).
   * @defaultValue `':memory:'`
   */
  readonly file?: string;
  /**
   * How often, in milliseconds, a worker looks for work no wake-up told it
   * of (events another process wrote to the file, delayed work coming due).
   * From `10` to `3_600_000`.
   * @defaultValue `1_000`
   */
  readonly pollMs?: number;
}

const OPTION_NAMES = ['file', 'pollMs'];

/**
 * The SQL adapter on a SQLite database of its own, for
 * `createEventBus({ transport: sqliteTransport({ file }) })`: the embedded
 * transport, with no server. It opens the file (and creates its tables)
 * before its first statement and closes it with the bus. A bus given no
 * transport runs on `sqliteTransport()`, in memory.
 *
 * Your unit of work's events go through the outbox here (its DataSource is
 * yours, not this one); to write them in your own transaction on a SQLite
 * application database, give that DataSource to `sqlTransport({ dataSource })`
 * instead. Needs the `better-sqlite3` package ({@link SqliteDriverMissingError}).
 *
 * @example
 * ```ts
 * const bus = createEventBus({ events, handlers, transport: sqliteTransport({ file: './events.sqlite' }) });
 * ```
 */
export function sqliteTransport(options: SqliteTransportOptions = {}): {
  readonly name: 'sqlite';
  readonly inProcess: boolean;
  open(context: { readonly config: ResolvedCommitbusOptions; readonly logger: Logger }): SqlTransport;
} {
  checkSqliteTransportOptions(options);
  const file = options.file ?? SQLITE_IN_MEMORY;
  const pollMs = options.pollMs;
  return {
    name: 'sqlite',
    inProcess: file === SQLITE_IN_MEMORY,
    open: ({ config, logger }) => {
      requireSqliteDriver(
        file === SQLITE_IN_MEMORY ? 'the embedded transport' : `the SQLite transport on ${file}`,
      );
      const { dataSource, owner } = ownedSqliteDataSource(file);
      return new SqlTransport(
        { dataSource, ...(pollMs === undefined ? {} : { pollMs }) },
        config,
        logger,
        owner,
      );
    },
  };
}

/** A `ConfigError` for options `sqliteTransport` cannot run on. */
function checkSqliteTransportOptions(options: unknown): asserts options is SqliteTransportOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError(
      "sqliteTransport takes an object of options: sqliteTransport({ file: './events.sqlite' })",
    );
  }
  const unknown = Object.keys(options).filter((name) => !OPTION_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `sqliteTransport has no option ${unknown.map((n) => `'${n}'`).join(', ')}; its options are ${OPTION_NAMES.join(', ')}${unknown.includes('dataSource') ? ' (on your own DataSource, use sqlTransport({ dataSource }))' : ''}`,
    );
  }
  const { file, pollMs } = options as Partial<SqliteTransportOptions>;
  if (file !== undefined && (typeof file !== 'string' || file.trim() === '')) {
    throw new ConfigError(
      `sqliteTransport's file must be a path or ':memory:'; got ${JSON.stringify(file) ?? String(file)}`,
    );
  }
  // better-sqlite3 opens no URIs: 'file:x.db?mode=ro' would be a file of that name, made in the working folder.
  if (file !== undefined && /^file:/i.test(file.trim())) {
    throw new ConfigError(
      `sqliteTransport's file must be a path, not a URI: better-sqlite3 would create a file named ${JSON.stringify(file)} in the working folder. Pass the path alone, e.g. './events.sqlite'`,
    );
  }
  const { min, max } = SQL_POLL_MS_RANGE;
  if (pollMs !== undefined && (!Number.isInteger(pollMs) || pollMs < min || pollMs > max)) {
    throw new ConfigError(
      `sqliteTransport's pollMs must be a whole number of milliseconds from ${min} to ${max}; got ${String(pollMs)}`,
    );
  }
}
