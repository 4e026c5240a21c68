import type { DataSource } from 'typeorm';
import { ConfigError } from '../../config/errors/config.error.js';
import { loadConfigFromEnv } from '../../config/load-config-from-env.js';
import { CONFIG_ENV_VARS } from '../../config/option-env.js';
import { transportNamed } from '../../config/transport-names.js';
import { silentLogger } from '../../support/logger.js';
import { redisTransport } from '../redis/redis-transport.js';
import type { sqlTransport } from '../sql/sql-transport.js';
import { sqliteTransport } from '../sql/sqlite-transport.js';
import { SQLITE_FILE_VARIABLE, sqlFromEnv, sqliteFromEnv } from './sql-from-env.js';

/** What {@link transportFromEnv} takes. */
export interface TransportFromEnvOptions {
  /**
   * The variables to read.
   * @defaultValue `process.env`
   */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The application's TypeORM DataSource (PostgreSQL or SQLite), which
   * `COMMITBUS_TRANSPORT=sql` runs the bus on; the other transports leave it
   * unused. Required with `sql`.
   */
  readonly dataSource?: DataSource;
}

/** The adapters {@link transportFromEnv} may pick. */
export type TransportFromEnv =
  | ReturnType<typeof redisTransport>
  | ReturnType<typeof sqliteTransport>
  | ReturnType<typeof sqlTransport>;

const OPTION_NAMES = ['env', 'dataSource'];

/**
 * The transport adapter the environment names, for services configured by
 * variables (`createEventBus({ config: loadConfigFromEnv(), transport:
 * transportFromEnv({ dataSource }) })`, what the README's worker and the CLI's modules
 * do): `COMMITBUS_TRANSPORT=redis` (or its old name `bullmq`), `sql` (the
 * SQL transport on `options.dataSource`, polling every
 * `COMMITBUS_SQL_POLL_MS`), `sqlite` (SQLite on the file
 * `COMMITBUS_SQLITE_FILE`, shared by the processes of one machine) or
 * `memory` (SQLite in this process's memory) when set; else the Redis adapter when a Redis is named (`REDIS_URL`,
 * `COMMITBUS_REDIS_URL`, `REDIS_CLUSTER_NODES`, `COMMITBUS_REDIS_CLUSTER`,
 * read as `loadConfigFromEnv` reads them, used only when the bus's options
 * name no Redis of their own, so the code's overrides win); else SQLite on
 * `COMMITBUS_SQLITE_FILE` when that is set; else SQLite in this process's
 * memory, the embedded default. The variables are `options.env`, else `process.env`. The key prefix is the bus's `redis.prefix` option
 * (`COMMITBUS_REDIS_PREFIX` through `loadConfigFromEnv`). Another value of `COMMITBUS_TRANSPORT`,
 * `sql` without a DataSource, a `COMMITBUS_SQL_POLL_MS` out of range, or a
 * Redis URL ioredis cannot read, throws a `ConfigError` naming the variable
 * (a password masked).
 */
export function transportFromEnv(options: TransportFromEnvOptions = {}): TransportFromEnv {
  checkOptions(options);
  const env = options.env ?? process.env;
  const asked = transportNamed(env);
  if (asked === 'sql') return sqlFromEnv(env, options.dataSource);
  if (asked === 'sqlite') return sqliteFromEnv(env);
  const redis = redisOf(env);
  if (asked === undefined && redis === undefined) {
    // A file named is a bus meant to be shared: never SQLite in memory instead, unnoticed.
    return (env[SQLITE_FILE_VARIABLE]?.trim() ?? '') === '' ? sqliteTransport() : sqliteFromEnv(env);
  }
  if (asked === 'memory') return sqliteTransport();
  const adapter = redisTransport(redis ?? {});
  // A fallback: a Redis the bus's own options name (loadConfigFromEnv's overrides) wins over the variables.
  return { ...adapter, settings: { ...adapter.settings, fallback: true } };
}

/** A `ConfigError` for an argument that is not `{ env?, dataSource? }` (the variables themselves, say). */
function checkOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError(
      'transportFromEnv takes an object of options: transportFromEnv({ env, dataSource }), both optional',
    );
  }
  const unknown = Object.keys(options).filter((name) => !OPTION_NAMES.includes(name));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 3).map((name) => `'${name}'`);
    throw new ConfigError(
      `transportFromEnv has no option ${shown.join(', ')}${unknown.length > 3 ? ', ...' : ''}; its options are env and dataSource: pass variables as transportFromEnv({ env })`,
    );
  }
}

/** The Redis the variables name, `undefined` when none does. */
function redisOf(env: NodeJS.ProcessEnv): Parameters<typeof redisTransport>[0] | undefined {
  const set = (path: string) =>
    (CONFIG_ENV_VARS[path] ?? []).filter((name) => (env[name]?.trim() ?? '') !== '');
  if (set('redis.url').length === 0 && set('redis.cluster').length === 0) return undefined;
  // Only the Redis variables are read here: the bus's other options (its prefix too) are loadConfigFromEnv's.
  const only = Object.fromEntries(
    ['redis.url', 'redis.cluster'].flatMap(set).map((name) => [name, env[name]]),
  );
  const { redis } = loadConfigFromEnv(only, {}, silentLogger);
  return redis.cluster !== undefined ? { cluster: redis.cluster } : { url: redis.url };
}
