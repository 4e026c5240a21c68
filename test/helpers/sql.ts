/**
 * The SQL adapter's databases in a test file: a fresh PostgreSQL schema of
 * the test database and an in-memory SQLite, each with commitbus's tables,
 * created before the file's tests and dropped after. The DataSources exist
 * at once (not yet initialized), so adapter values can be made at import
 * time; the transport's statements need them only once tests run.
 */
import { randomBytes } from 'node:crypto';
import { DataSource, type Logger } from 'typeorm';
import { afterAll, beforeAll } from 'vitest';
import { COMMITBUS_ENTITIES } from '../../src/index.js';
import { PG, resetSchema } from './postgres.js';

/** The two databases of {@link sqlTestDatabases}. */
export interface SqlTestDatabases {
  /** On a schema of its own of the test PostgreSQL. */
  readonly postgres: DataSource;
  /** In memory, in this process. */
  readonly sqlite: DataSource;
}

let shared: SqlTestDatabases | undefined;

/**
 * The file's SQL databases (one pair per test file), set up and torn down by
 * hooks of the file. `options.logger` (a TypeORM logger, such as
 * `StatementRecorder`) is given to both, on the file's first call.
 */
export function sqlTestDatabases(options: { readonly logger?: Logger } = {}): SqlTestDatabases {
  if (shared !== undefined) return shared;
  const schema = `cb_sql_${randomBytes(4).toString('hex')}`;
  const databases: SqlTestDatabases = {
    postgres: new DataSource({
      type: 'postgres',
      ...PG,
      username: PG.user,
      schema,
      entities: [...COMMITBUS_ENTITIES],
      synchronize: true,
      logger: options.logger,
    }),
    sqlite: new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [...COMMITBUS_ENTITIES],
      synchronize: true,
      logger: options.logger,
    }),
  };
  shared = databases;
  beforeAll(async () => {
    await resetSchema(schema);
    await Promise.all([databases.postgres.initialize(), databases.sqlite.initialize()]);
  });
  afterAll(async () => {
    if (databases.postgres.isInitialized) {
      await databases.postgres.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await databases.postgres.destroy();
    }
    if (databases.sqlite.isInitialized) await databases.sqlite.destroy();
  });
  return databases;
}
