import type { DataSource } from 'typeorm';
import { ConfigError } from '../../config/errors/config.error.js';
import { sqlTransport } from '../sql/sql-transport.js';
import { SQL_POLL_MS_RANGE } from '../sql/sql-transport-options.js';
import { sqliteTransport } from '../sql/sqlite-transport.js';

/** The variable of the SQL transport's `pollMs`. */
export const SQL_POLL_MS_VARIABLE = 'COMMITBUS_SQL_POLL_MS';

/** The variable naming the SQLite file of `COMMITBUS_TRANSPORT=sqlite`. */
export const SQLITE_FILE_VARIABLE = 'COMMITBUS_SQLITE_FILE';

/**
 * The SQL transport `COMMITBUS_TRANSPORT=sql` asks for, on `dataSource`,
 * its `pollMs` from {@link SQL_POLL_MS_VARIABLE} when set. A `ConfigError`
 * when no DataSource was given (saying what to pass) or the variable is not
 * a whole number of milliseconds in {@link SQL_POLL_MS_RANGE}.
 */
export function sqlFromEnv(
  env: NodeJS.ProcessEnv,
  dataSource: DataSource | undefined,
): ReturnType<typeof sqlTransport> {
  if (dataSource === undefined) {
    throw new ConfigError(
      'COMMITBUS_TRANSPORT=sql runs the bus on your database, so transportFromEnv needs its TypeORM DataSource: transportFromEnv({ dataSource }) (the DataSource of your entities, with COMMITBUS_ENTITIES or COMMITBUS_MIGRATIONS in it); or set COMMITBUS_TRANSPORT to redis, or to sqlite with COMMITBUS_SQLITE_FILE',
    );
  }
  const pollMs = pollMsOf(env);
  return sqlTransport(pollMs === undefined ? { dataSource } : { dataSource, pollMs });
}

/**
 * The SQLite transport `COMMITBUS_TRANSPORT=sqlite` asks for, on the file
 * {@link SQLITE_FILE_VARIABLE} names (required: the variable is how two
 * processes find the same file), polling every `COMMITBUS_SQL_POLL_MS`.
 */
export function sqliteFromEnv(env: NodeJS.ProcessEnv): ReturnType<typeof sqliteTransport> {
  const file = env[SQLITE_FILE_VARIABLE]?.trim() ?? '';
  if (file === '') {
    throw new ConfigError(
      `COMMITBUS_TRANSPORT=sqlite runs the bus on a SQLite file the processes of this machine share: set ${SQLITE_FILE_VARIABLE} to its path (or COMMITBUS_TRANSPORT=memory for SQLite in this process's memory)`,
    );
  }
  const pollMs = pollMsOf(env);
  return sqliteTransport(pollMs === undefined ? { file } : { file, pollMs });
}

/** {@link SQL_POLL_MS_VARIABLE}'s value, `undefined` when unset or blank. */
function pollMsOf(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env[SQL_POLL_MS_VARIABLE]?.trim() ?? '';
  if (raw === '') return undefined;
  const { min, max } = SQL_POLL_MS_RANGE;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(
      `${SQL_POLL_MS_VARIABLE} must be a whole number of milliseconds from ${min} to ${max} (how often a SQL worker looks for work no wake-up told it of), got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}
