/**
 * `sqlTransport()` refuses what it cannot run on with a `ConfigError` that
 * says what to pass, and its database handle (`SqlDb`) runs statements and
 * transactions the same way on PostgreSQL and SQLite.
 */
import { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/index.js';
import { SqlDataSourceNotInitializedError, SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { toPostgresPlaceholders } from '../../../src/transports/sql/sql-placeholders.js';
import { sqlTestDatabases } from '../../helpers/sql.js';

const databases = sqlTestDatabases();

describe('sqlTransport options', () => {
  it('takes a DataSource of PostgreSQL or SQLite, initialized or not', () => {
    expect(sqlTransport({ dataSource: databases.postgres }).name).toBe('sql');
    expect(sqlTransport({ dataSource: databases.sqlite, pollMs: 50 }).name).toBe('sql');
  });

  it.each([
    ['the DataSource itself', () => sqlTransport(databases.postgres as never), /not the DataSource itself/],
    ['nothing', () => sqlTransport(undefined as never), /sqlTransport\(\{ dataSource \}\)/],
    ['no DataSource', () => sqlTransport({} as never), /needs the TypeORM DataSource/],
    [
      'a misspelt option',
      () => sqlTransport({ dataSource: databases.postgres, polMs: 5 } as never),
      /no option 'polMs'/,
    ],
    ['a pollMs of 0', () => sqlTransport({ dataSource: databases.postgres, pollMs: 0 }), /pollMs must be/],
    [
      '0 drains',
      () => sqlTransport({ dataSource: databases.postgres, drains: 0 }),
      /drains must be .* 1 to 64/,
    ],
    ['1.5 drains', () => sqlTransport({ dataSource: databases.postgres, drains: 1.5 }), /drains must be/],
    [
      'a MySQL DataSource',
      () =>
        sqlTransport({ dataSource: { options: { type: 'mysql' }, createQueryRunner: () => ({}) } as never }),
      /runs on PostgreSQL .* and SQLite .* this DataSource is of type 'mysql'/,
    ],
  ])('refuses %s with a ConfigError', (_what, make, message) => {
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(message);
  });
});

describe('SqlDb', () => {
  it('numbers placeholders for PostgreSQL', () => {
    expect(toPostgresPlaceholders('SELECT ? WHERE a = ? AND b IN (?, ?)')).toBe(
      'SELECT $1 WHERE a = $2 AND b IN ($3, $4)',
    );
  });

  it('says what to do when its DataSource is not initialized, and names no password', async () => {
    const db = new SqlDb(
      new DataSource({ type: 'postgres', host: 'db.example', password: 'hunter2', database: 'app' }),
    );
    const failure = await db.query('SELECT 1').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SqlDataSourceNotInitializedError);
    expect(String((failure as Error).message)).toMatch(/await dataSource.initialize\(\)/);
    expect(db.where()).toBe('PostgreSQL db.example:5432/app');
    const byUrl = new SqlDb(
      new DataSource({ type: 'postgres', url: 'postgres://app:hunter2@db.example:6543/orders' }),
    );
    expect(byUrl.where()).toBe('PostgreSQL db.example:6543/orders');
  });

  describe.each(['postgres', 'sqlite'] as const)('on %s', (which) => {
    it('commits a transaction that resolves and rolls back one that throws; reads the database clock', async () => {
      const db = new SqlDb(databases[which]);
      await db.execute('CREATE TABLE IF NOT EXISTS sqldb_probe (n integer)');
      await db.execute('DELETE FROM sqldb_probe');
      await db.transaction(async (tx) => {
        expect(await tx.execute('INSERT INTO sqldb_probe (n) VALUES (?), (?)', [1, 2])).toBe(2);
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.execute('INSERT INTO sqldb_probe (n) VALUES (?)', [3]);
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      const rows = await db.query<{ n: number }>('SELECT n FROM sqldb_probe ORDER BY n');
      expect(rows.map((r) => Number(r.n))).toEqual([1, 2]);
      const [clock] = await db.query<{ now: string | number }>(`SELECT ${db.now} AS now`);
      expect(Math.abs(Number(clock?.now) - Date.now())).toBeLessThan(5_000);
    });
  });
});
