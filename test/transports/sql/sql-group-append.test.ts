/**
 * On SQLite, appends that come while one is being written share the next
 * transaction (a group commit), each in a savepoint: each resolves as if it
 * ran alone, one after the other, and one that fails is rolled back and
 * rejected alone.
 */
import { describe, expect, it } from 'vitest';
import type { OutgoingEvent } from '../../../src/events/outgoing-event.js';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb } from '../../../src/transports/sql/index.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { StatementRecorder } from '../../helpers/sql-statements.js';
import { countRows } from '../../helpers/sql-uow.js';

const recorder = new StatementRecorder();
const databases = sqlTestDatabases({ logger: recorder });

const event = (id: string): OutgoingEvent => ({ id, payload: `{"id":"${id}"}` });

describe('appends on SQLite', () => {
  it('share a transaction when they come together; each counts as if alone; a failing one is rejected alone', async () => {
    const bus = `group-${Date.now()}`;
    const db = new SqlDb(databases.sqlite);
    const wakeups = openSqlWakeups(db, bus, silentLogger);
    const log = new SqlEventLog(db, bus, { dedupeWindowMs: 60_000, wakeups, lanes: async () => undefined });
    try {
      recorder.clear();
      // A NULL payload breaks the NOT NULL constraint: that append fails.
      const broken: OutgoingEvent = { id: 'broken', payload: null as unknown as string };
      const outcomes = await Promise.allSettled([
        log.append([event('first')]),
        ...Array.from({ length: 10 }, (_, i) => log.append([event('shared'), event(`own${i}`)])),
        log.append([event('fine'), broken]),
        log.append([event('last'), event('shared')]),
      ]);
      const results = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected'));
      expect(results[0]).toEqual({ appended: 1, delayed: 0, dropped: 0 });
      expect(results[1]).toEqual({ appended: 2, delayed: 0, dropped: 0 });
      for (const r of results.slice(2, 11)) expect(r).toEqual({ appended: 1, delayed: 0, dropped: 1 });
      expect(results[11]).toBe('rejected');
      expect(results[12]).toEqual({ appended: 1, delayed: 0, dropped: 1 });
      // 'fine' went with the append that failed: rolled back with it.
      expect(await countRows(databases.sqlite, 'commitbus_events', 'bus = ?', [bus])).toBe(13);
      expect(await countRows(databases.sqlite, 'commitbus_event_ids', 'bus = ?', [bus])).toBe(13);
      const begins = recorder.all().filter((s) => /^\s*BEGIN/i.test(s.sql)).length;
      expect(begins).toBeGreaterThan(0);
      expect(begins).toBeLessThan(outcomes.length);
    } finally {
      await wakeups.close();
    }
  });
});
