/**
 * The SQL transport's migrations create its tables as its entities describe
 * them, on PostgreSQL and SQLite: after `COMMITBUS_MIGRATIONS` the schema
 * builder has nothing to change on them.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb } from '../../../src/transports/sql/index.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import { migratedDataSource } from '../../helpers/sql-migrated.js';

const TABLES =
  /commitbus_(jobs|rules|parked|dropped|locks|dead_letters|dead_letter_counts|schedule_ticks|lanes|lane_events|lane_workers|lane_counters|workers|history|operator_actions)\b/;

describe('SQL transport migrations', () => {
  it.each(['postgres', 'sqlite'] as const)('match the entities on %s', async (dialect) => {
    const { dataSource: ds } = await migratedDataSource(dialect);
    const { upQueries } = await ds.driver.createSchemaBuilder().log();
    expect(upQueries.map((q) => q.query).filter((q) => TABLES.test(q))).toEqual([]);
  });
});

describe('SQL transport id sequences (postgres)', () => {
  it('start again at 1 after their last integer value: appends go on past 2^31 - 1 ids', async () => {
    const { dataSource: ds, schema } = await migratedDataSource('postgres');
    await ds.query(`SELECT setval(pg_get_serial_sequence('${schema}.commitbus_events', 'id'), 2147483646)`);
    const db = new SqlDb(ds);
    const wakeups = openSqlWakeups(db, 'seq', silentLogger);
    try {
      const log = new SqlEventLog(db, 'seq', {
        dedupeWindowMs: 60_000,
        wakeups,
        lanes: async () => undefined,
      });
      for (const id of ['e1', 'e2', 'e3']) await log.append([{ id, payload: `{"id":"${id}"}` }]);
      const rows = (await ds.query(`SELECT id FROM ${schema}.commitbus_events ORDER BY event_id`)) as {
        id: number;
      }[];
      expect(rows.map((r) => Number(r.id))).toEqual([2147483647, 1, 2]);
      const claimed = await log.read('c1', 10, 0);
      expect(claimed).toHaveLength(3);
    } finally {
      await wakeups.close();
    }
  });
});
