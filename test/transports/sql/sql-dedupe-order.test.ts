/**
 * Two publishing transactions carrying the same event ids in opposite
 * orders (a relay republishing what a publisher also sends, two services
 * forwarding one batch) lock the dedupe ids in one order: one waits for the
 * other, neither is aborted as a deadlock, and each id is accepted once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OutgoingEvent } from '../../../src/events/outgoing-event.js';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb } from '../../../src/transports/sql/index.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import type { SqlWakeups } from '../../../src/transports/sql/sql-wakeups.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { countRows } from '../../helpers/sql-uow.js';

const databases = sqlTestDatabases();
const opened: SqlWakeups[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((w) => w.close()));
});

const event = (id: string): OutgoingEvent => ({ id, payload: `{"id":"${id}"}` });

describe('dedupe ids of concurrent publishes (postgres)', () => {
  it.each([
    ['one statement', 40],
    ['the multi-statement path (a delayed event)', 40],
  ])('with %s, the same ids in opposite orders never deadlock', async (path, size) => {
    const bus = `dedupe-order-${path.length}-${Date.now()}`;
    const db = new SqlDb(databases.postgres);
    const wakeups = openSqlWakeups(db, bus, silentLogger);
    opened.push(wakeups);
    const log = new SqlEventLog(db, bus, { dedupeWindowMs: 600_000, wakeups, lanes: async () => undefined });
    const delayed = path.startsWith('the multi');
    for (let round = 0; round < 8; round++) {
      const ids = Array.from({ length: size }, (_, i) => `r${round}-e${i}`);
      const batch = (order: string[]) =>
        order.map((id) => (delayed ? { ...event(id), deliverAt: Date.now() + 60_000 } : event(id)));
      await Promise.all([
        db.transaction((tx) => log.appendWith(tx, batch(ids))),
        db.transaction((tx) => log.appendWith(tx, batch([...ids].reverse()))),
      ]);
    }
    expect(await countRows(databases.postgres, 'commitbus_events', 'bus = ?', [bus])).toBe(8 * size);
    expect(await countRows(databases.postgres, 'commitbus_event_ids', 'bus = ?', [bus])).toBe(8 * size);
  });
});
