import type { DataSource } from 'typeorm';
import { ConfigError } from '../../config/errors/config.error.js';
import { sqlTransport } from '../sql/sql-transport.js';
import { SQL_POLL_MS_RANGE } from '../sql/sql-transport-options.js';

/** The variable of the SQL transport's `pollMs`. */
export const SQL_POLL_MS_VARIABLE = 'COMMITBUS_SQL_POLL_MS';

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
      'COMMITBUS_TRANSPORT=sql runs the bus on your database, so transportFromEnv needs its TypeORM DataSource: transportFromEnv({ dataSource }) (the DataSource of your entities, with COMMITBUS_ENTITIES or COMMITBUS_MIGRATIONS in it); or set COMMITBUS_TRANSPORT to redis or memory',
    );
  }
  const pollMs = pollMsOf(env);
  return sqlTransport(pollMs === undefined ? { dataSource } : { dataSource, pollMs });
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
