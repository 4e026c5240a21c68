/**
 * The SQL history store keeps 24 hours: a record deletes the bus's minutes
 * older than the 1,440 kept (and no other bus's), and a read never returns
 * them, on PostgreSQL and SQLite (the rest of the port's contract:
 * test/conformance/history-store.conformance.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { HISTORY_MINUTES, MINUTE_MS, minuteOf, NO_SAMPLE } from '../../../src/metrics/history-store.js';
import { SqlDb } from '../../../src/transports/sql/index.js';
import { SqlHistoryStore } from '../../../src/transports/sql/sql.history-store.js';
import { sqlTestDatabases } from '../../helpers/sql.js';

const databases = sqlTestDatabases();
const DAY = 86_400_000;

const SAMPLE = { ...NO_SAMPLE, published: 1 };

describe.each(['postgres', 'sqlite'] as const)('SqlHistoryStore retention on %s', (dialect) => {
  it('removes the minutes past 24 hours at a record and never reads them', async () => {
    const dataSource = databases[dialect];
    const db = new SqlDb(dataSource);
    const store = new SqlHistoryStore(db, `retention-${dialect}`);
    const now = minuteOf(Date.now());
    const tooOld = now - HISTORY_MINUTES * MINUTE_MS;
    const oldestKept = now - (HISTORY_MINUTES - 2) * MINUTE_MS;
    const insert = (bus: string, minute: number) =>
      db.execute(`INSERT INTO ${db.table('commitbus_history')} (bus, minute, published) VALUES (?, ?, 7)`, [
        bus,
        minute,
      ]);
    await insert(store.bus, tooOld);
    await insert(store.bus, oldestKept);
    await insert('another-bus', tooOld);
    // Read before any record: the old minute is still stored, and not returned.
    expect((await store.read(2 * DAY)).minutes.map((m) => m.minute.getTime())).toEqual([oldestKept]);
    await store.record(SAMPLE);
    const rows = await db.query<{ bus: string; minute: number | string }>(
      `SELECT bus, minute FROM ${db.table('commitbus_history')} WHERE minute < ? ORDER BY bus`,
      [now - MINUTE_MS],
    );
    expect(rows.map((r) => [r.bus, Number(r.minute)])).toEqual([
      ['another-bus', tooOld],
      [store.bus, oldestKept],
    ]);
  });
});
