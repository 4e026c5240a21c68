import type { DataSource } from 'typeorm';
import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import { ConfigError } from '../../config/errors/config.error.js';
import type { Logger } from '../../support/logger.js';
import { SqlTransport } from './sql.transport.js';
import { dialectOf } from './sql-db.js';
import { SQL_DRAINS_RANGE, SQL_POLL_MS_RANGE, type SqlTransportOptions } from './sql-transport-options.js';

/**
 * The SQL adapter as a value, for `createEventBus({ transport:
 * sqlTransport({ dataSource }) })`: events, handler jobs, rules, dead
 * letters and ordered lanes in tables of the application's own database
 * (PostgreSQL, or SQLite through `better-sqlite3`), no Redis needed. Its
 * tables are in `COMMITBUS_ENTITIES` and `COMMITBUS_MIGRATIONS`. The HTTP
 * router needs Redis and refuses this transport.
 *
 * @example
 * ```ts
 * const bus = createEventBus({ events, handlers, transport: sqlTransport({ dataSource }) });
 * ```
 */
export function sqlTransport(options: SqlTransportOptions): {
  readonly name: 'sql';
  open(context: { readonly config: ResolvedCommitbusOptions; readonly logger: Logger }): SqlTransport;
} {
  checkSqlTransportOptions(options);
  const given = { ...options };
  return {
    name: 'sql',
    open: ({ config, logger }) => new SqlTransport(given, config, logger),
  };
}

const OPTION_NAMES = ['dataSource', 'pollMs', 'drains'];

/** A `ConfigError` for what `sqlTransport` cannot run on. */
function checkSqlTransportOptions(options: unknown): asserts options is SqlTransportOptions {
  if (isDataSource(options)) {
    throw new ConfigError(
      'sqlTransport takes an object of options: sqlTransport({ dataSource }), not the DataSource itself',
    );
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError('sqlTransport takes an object of options: sqlTransport({ dataSource })');
  }
  const unknown = Object.keys(options).filter((name) => !OPTION_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `sqlTransport has no option ${unknown.map((n) => `'${n}'`).join(', ')}; its options are ${OPTION_NAMES.join(', ')}`,
    );
  }
  const { dataSource, pollMs, drains } = options as Partial<SqlTransportOptions>;
  if (!isDataSource(dataSource)) {
    throw new ConfigError(
      'sqlTransport needs the TypeORM DataSource of your database: sqlTransport({ dataSource }) (a DataSource of the typeorm package your application uses)',
    );
  }
  try {
    dialectOf(dataSource);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const { min, max } = SQL_POLL_MS_RANGE;
  if (pollMs !== undefined && (!Number.isInteger(pollMs) || pollMs < min || pollMs > max)) {
    throw new ConfigError(
      `sqlTransport's pollMs must be a whole number of milliseconds from ${min} to ${max}; got ${String(pollMs)}`,
    );
  }
  const range = SQL_DRAINS_RANGE;
  if (drains !== undefined && (!Number.isInteger(drains) || drains < range.min || drains > range.max)) {
    throw new ConfigError(
      `sqlTransport's drains must be a whole number from ${range.min} to ${range.max}; got ${String(drains)}`,
    );
  }
}

/** Whether `value` looks like a TypeORM DataSource (of any copy of typeorm). */
function isDataSource(value: unknown): value is DataSource {
  const candidate = value as Partial<DataSource> | null | undefined;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.createQueryRunner === 'function' &&
    typeof candidate.options === 'object'
  );
}
