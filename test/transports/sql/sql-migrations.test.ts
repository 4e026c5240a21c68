/**
 * The SQL transport's migrations create its tables as its entities describe
 * them, on PostgreSQL and SQLite: after `COMMITBUS_MIGRATIONS` the schema
 * builder has nothing to change on them.
 */
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMITBUS_ENTITIES, COMMITBUS_MIGRATIONS } from '../../../src/index.js';
import { PG, resetSchema } from '../../helpers/postgres.js';

const TABLES =
  /commitbus_(jobs|rules|parked|dropped|locks|dead_letters|schedule_ticks|lanes|lane_events|lane_workers|lane_counters)\b/;
const opened: DataSource[] = [];
afterAll(async () => {
  for (const ds of opened) {
    const { schema } = ds.options as { schema?: string };
    if (schema !== undefined) await ds.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await ds.destroy();
  }
});

describe('SQL transport migrations', () => {
  it.each(['postgres', 'sqlite'] as const)('match the entities on %s', async (dialect) => {
    const schema = `cb_sqlmig_${randomBytes(4).toString('hex')}`;
    if (dialect === 'postgres') await resetSchema(schema);
    const common = { entities: [...COMMITBUS_ENTITIES], migrations: [...COMMITBUS_MIGRATIONS] };
    const ds = new DataSource(
      dialect === 'postgres'
        ? { type: 'postgres', ...PG, username: PG.user, schema, ...common }
        : { type: 'better-sqlite3', database: ':memory:', ...common },
    );
    await ds.initialize();
    opened.push(ds);
    await ds.runMigrations();
    const { upQueries } = await ds.driver.createSchemaBuilder().log();
    expect(upQueries.map((q) => q.query).filter((q) => TABLES.test(q))).toEqual([]);
  });
});
