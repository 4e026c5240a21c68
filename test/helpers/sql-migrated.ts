/**
 * A database whose commitbus tables were made by migrations, as an
 * application that runs `COMMITBUS_MIGRATIONS` has them: PostgreSQL on a
 * schema of its own, or SQLite in memory. Dropped and closed after the
 * calling file's tests.
 */
import { randomBytes } from 'node:crypto';
import { DataSource, type MigrationInterface } from 'typeorm';
import { afterAll } from 'vitest';
import { COMMITBUS_ENTITIES, COMMITBUS_MIGRATIONS } from '../../src/index.js';
import { PG, resetSchema } from './postgres.js';

const opened: DataSource[] = [];
let hooked = false;

/** A DataSource on `dialect` with `migrations` run (all of commitbus's by default); on PostgreSQL its schema is `schema` of it. */
export async function migratedDataSource(
  dialect: 'postgres' | 'sqlite',
  migrations: readonly (new () => MigrationInterface)[] = COMMITBUS_MIGRATIONS,
): Promise<{ dataSource: DataSource; schema: string }> {
  if (!hooked) {
    hooked = true;
    afterAll(async () => {
      for (const ds of opened.splice(0)) {
        const { schema } = ds.options as { schema?: string };
        if (schema !== undefined) await ds.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await ds.destroy();
      }
    });
  }
  const schema = `cb_mig_${randomBytes(4).toString('hex')}`;
  if (dialect === 'postgres') await resetSchema(schema);
  const common = { entities: [...COMMITBUS_ENTITIES], migrations: [...migrations] };
  const dataSource = new DataSource(
    dialect === 'postgres'
      ? { type: 'postgres', ...PG, username: PG.user, schema, ...common }
      : { type: 'better-sqlite3', database: ':memory:', ...common },
  );
  await dataSource.initialize();
  opened.push(dataSource);
  await dataSource.runMigrations();
  return { dataSource, schema };
}
