/**
 * Expired dedupe ids are deleted by the worker's upkeep, never inside a
 * publishing transaction (a unit of work's): an append leaves them, a
 * running worker deletes them, and on PostgreSQL a prune skips the ids
 * another transaction holds instead of waiting for it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OutgoingEvent } from '../../../src/events/outgoing-event.js';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import type { SqlWakeups } from '../../../src/transports/sql/sql-wakeups.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { countRows } from '../../helpers/sql-uow.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const event = (id: string): OutgoingEvent => ({ id, payload: `{"id":"${id}"}` });
const opened: SqlWakeups[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((w) => w.close()));
});

let n = 0;

/** An event log of a fresh bus whose dedupe ids expire after 1 ms. */
function shortLivedIds(which: 'postgres' | 'sqlite'): { log: SqlEventLog; db: SqlDb; bus: string } {
  const bus = `prune-${which}-${++n}-${Date.now()}`;
  const db = new SqlDb(databases[which]);
  const wakeups = openSqlWakeups(db, bus, silentLogger);
  opened.push(wakeups);
  return {
    log: new SqlEventLog(db, bus, { dedupeWindowMs: 1, wakeups, lanes: async () => undefined }),
    db,
    bus,
  };
}

async function expiredIds(db: SqlDb, bus: string): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(
    `SELECT COUNT(*) AS n FROM ${db.table('commitbus_event_ids')} WHERE bus = ? AND expires_at <= ${db.now}`,
    [bus],
  );
  return Number(row?.n);
}

describe.each(['postgres', 'sqlite'] as const)('pruning expired dedupe ids (%s)', (which) => {
  it('an append leaves expired ids; a prune deletes them, oldest first, and only the bus own', async () => {
    const { log, db, bus } = shortLivedIds(which);
    const other = shortLivedIds(which);
    await log.append(['a1', 'a2', 'a3'].map(event));
    await other.log.append([event('b1')]);
    await waitFor('the ids to expire', async () => (await expiredIds(db, bus)) === 3);
    await log.append([event('a4')]);
    expect(await countRows(databases[which], 'commitbus_event_ids', 'bus = ?', [bus])).toBe(4);
    await waitFor('a4 to expire', async () => (await expiredIds(db, bus)) === 4);
    expect(await log.pruneExpiredIds()).toBe(4);
    expect(await countRows(databases[which], 'commitbus_event_ids', 'bus = ?', [bus])).toBe(0);
    expect(await countRows(databases[which], 'commitbus_event_ids', 'bus = ?', [other.bus])).toBe(1);
    expect(await countRows(databases[which], 'commitbus_events', 'bus = ?', [bus])).toBe(4);
  });

  it('a backlog past one prune: 10,000 at most a call (20 statements of 500), the rest at the next', async () => {
    const { log, db, bus } = shortLivedIds(which);
    const ids = Array.from({ length: 10_600 }, (_, i) => event(`many-${i}`));
    await log.append(ids);
    await waitFor('the ids to expire', async () => (await expiredIds(db, bus)) === ids.length);
    expect(await log.pruneExpiredIds()).toBe(10_000);
    expect(await countRows(databases[which], 'commitbus_event_ids', 'bus = ?', [bus])).toBe(600);
    expect(await log.pruneExpiredIds()).toBe(600);
    expect(await log.pruneExpiredIds()).toBe(0);
    expect(await countRows(databases[which], 'commitbus_event_ids', 'bus = ?', [bus])).toBe(0);
  });
});

describe('pruning expired dedupe ids (postgres, concurrent)', () => {
  it('skips the ids another transaction holds instead of waiting for it', async () => {
    const { log, db, bus } = shortLivedIds('postgres');
    await log.append(['old1', 'old2', 'old3'].map(event));
    await waitFor('the three ids to expire', async () => (await expiredIds(db, bus)) === 3);
    const ids = db.table('commitbus_event_ids');
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = false;
    const holder = db.transaction(async (tx) => {
      await tx.query(`SELECT event_id FROM ${ids} WHERE bus = ? AND event_id = ? FOR UPDATE`, [bus, 'old1']);
      locked = true;
      await held;
    });
    await waitFor('old1 to be locked', () => locked);
    try {
      expect(await log.pruneExpiredIds()).toBe(2);
    } finally {
      release();
      await holder;
    }
    expect(await log.pruneExpiredIds()).toBe(1);
  });
});

describe.each(['postgres', 'sqlite'] as const)("a worker's upkeep (%s)", (which) => {
  it('deletes the expired dedupe ids of its bus while it runs', async () => {
    const buses = new Buses();
    try {
      const name = `upkeep-${which}-${++n}`;
      const { bus } = await buses.start({
        events: [...TEST_EVENTS],
        config: fastConfig({ name, outbox: { enabled: false }, publishing: { dedupeWindowMs: 1 } }),
        transport: sqlTransport({ dataSource: databases[which], pollMs: 50 }),
      });
      await bus.publish([recordCreated('r1'), recordCreated('r2')]);
      await waitFor(
        'the worker to delete the expired ids',
        async () => (await countRows(databases[which], 'commitbus_event_ids', 'bus = ?', [name])) === 0,
      );
    } finally {
      await buses.closeAll();
    }
  });
});
