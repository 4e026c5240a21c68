import pg from 'pg';
import { DataSource, type DataSourceOptions, type EntitySchema } from 'typeorm';
import { COMMITBUS_ENTITIES } from '../../src/index.js';

/** The test database: trust auth, database `test` (or `TEST_PG_DATABASE`). */
export const PG = {
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: process.env.TEST_PG_DATABASE ?? 'test',
};

// biome-ignore lint/complexity/noBannedTypes: TypeORM takes entity classes as Function
type Entities = (Function | EntitySchema)[];

/** Drops `schema` with everything in it and creates it again, empty. */
export async function resetSchema(schema: string): Promise<void> {
  const admin = new pg.Client(PG);
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } finally {
    await admin.end();
  }
}

/**
 * A DataSource on a fresh schema of the test database, its tables created from
 * `entities` plus commitbus's own (the outbox), as an application's would be.
 */
export async function openSchema(schema: string, entities: Entities): Promise<DataSource> {
  await resetSchema(schema);
  return connectSchema(schema, { entities: [...entities, ...COMMITBUS_ENTITIES], synchronize: true });
}

/**
 * A DataSource on `schema` as it is, nothing created unless `options` say so
 * (`synchronize`, `migrationsRun`): another process's view of a schema opened
 * by {@link openSchema}, or a DataSource set up the way a test needs.
 */
export function connectSchema(
  schema: string,
  options: Pick<DataSourceOptions, 'entities' | 'migrations' | 'migrationsRun' | 'synchronize'>,
): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'postgres',
    ...PG,
    username: PG.user,
    schema,
    ...options,
  });
  return dataSource.initialize();
}

/** Drops the schema opened by {@link openSchema} and closes the DataSource. */
export async function closeSchema(dataSource: DataSource): Promise<void> {
  const { schema } = dataSource.options as { schema?: string };
  if (schema !== undefined) await dataSource.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await dataSource.destroy();
}
