import pg from 'pg';
import { DataSource, type EntitySchema } from 'typeorm';
import { COMMITBUS_ENTITIES } from '../../src/index.js';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };

// biome-ignore lint/complexity/noBannedTypes: TypeORM takes entity classes as Function
type Entities = (Function | EntitySchema)[];

/**
 * A DataSource on a fresh schema of the test database, its tables created from
 * `entities` plus commitbus's own (the outbox), as an application's would be.
 */
export async function openSchema(schema: string, entities: Entities): Promise<DataSource> {
  const admin = new pg.Client(PG);
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } finally {
    await admin.end();
  }
  const dataSource = new DataSource({
    type: 'postgres',
    ...PG,
    username: PG.user,
    schema,
    entities: [...entities, ...COMMITBUS_ENTITIES],
    synchronize: true,
  });
  return dataSource.initialize();
}

/** Drops the schema opened by {@link openSchema} and closes the DataSource. */
export async function closeSchema(dataSource: DataSource): Promise<void> {
  const { schema } = dataSource.options as { schema?: string };
  if (schema !== undefined) await dataSource.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await dataSource.destroy();
}
