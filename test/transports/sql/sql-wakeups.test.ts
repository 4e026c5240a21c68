/**
 * The SQL transport's wake-ups on a real PostgreSQL: a `pg_notify` sent in
 * a committed transaction wakes a waiter of another DataSource; a rolled
 * back one does not; close gives the LISTEN connection back; an interrupt
 * holds until resume.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb } from '../../../src/transports/sql/sql-db.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import { PG } from '../../helpers/postgres.js';
import { waitFor } from '../../helpers/wait-for.js';

const RECEIVER = `cb-wakeups-${process.pid}`;
const open = (applicationName: string) =>
  new DataSource({ type: 'postgres', ...PG, username: PG.user, applicationName });
const sender = open('cb-wakeups-sender');
const receiver = open(RECEIVER);

beforeAll(async () => {
  await Promise.all([sender.initialize(), receiver.initialize()]);
});
afterAll(async () => {
  await Promise.all([sender.destroy(), receiver.destroy()]);
});

/** Backend pids of `receiver`'s connections whose last statement was a LISTEN. */
async function listening(): Promise<number[]> {
  const rows = (await sender.query(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'",
    [RECEIVER],
  )) as { pid: number }[];
  return rows.map((r) => Number(r.pid));
}

/** Whether backend `pid` is still connected. */
async function alive(pid: number): Promise<boolean> {
  const rows = (await sender.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])) as unknown[];
  return rows.length > 0;
}

describe('SQL wake-ups on PostgreSQL', () => {
  it('a notify in a committed transaction wakes a waiter of another DataSource; a rolled-back one does not; close releases the connection', async () => {
    const bus = `wk-${Date.now()}`;
    const senderDb = new SqlDb(sender);
    const here = openSqlWakeups(senderDb, bus, silentLogger);
    const there = openSqlWakeups(new SqlDb(receiver), bus, silentLogger);
    // The first wait takes the LISTEN connection.
    await there.wait('events', 10);
    let pids: number[] = [];
    await waitFor('the LISTEN to be up', async () => {
      pids = await listening();
      return pids.length === 1;
    });

    const woken = there.wait('events', 5_000);
    const started = Date.now();
    await senderDb.transaction((tx) => here.notifyIn(tx, 'events'));
    await woken;
    expect(Date.now() - started).toBeLessThan(2_000);

    const notWoken = there.wait('events', 500);
    const again = Date.now();
    await senderDb
      .transaction(async (tx) => {
        await here.notifyIn(tx, 'events');
        throw new Error('roll back');
      })
      .catch(() => {});
    await notWoken;
    expect(Date.now() - again).toBeGreaterThanOrEqual(450);

    // Another topic or another bus wakes nothing either.
    const otherTopic = there.wait('jobs', 300);
    const t = Date.now();
    await senderDb.transaction((tx) =>
      openSqlWakeups(senderDb, `${bus}-other`, silentLogger).notifyIn(tx, 'jobs'),
    );
    await otherTopic;
    expect(Date.now() - t).toBeGreaterThanOrEqual(250);

    await there.close();
    await here.close();
    const [pid] = pids;
    await waitFor('the LISTEN connection to be gone', async () => pid !== undefined && !(await alive(pid)));
  });

  it('interrupt ends waits begun after it too, until resume', async () => {
    const wakeups = openSqlWakeups(new SqlDb(receiver), `wk-int-${Date.now()}`, silentLogger);
    const before = wakeups.wait('jobs', 3_600_000);
    wakeups.interrupt();
    await before;
    await wakeups.wait('events', 3_600_000);
    wakeups.resume();
    let woken = false;
    const after = wakeups.wait('jobs', 3_600_000).then(() => {
      woken = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(false);
    wakeups.local('jobs');
    await after;
    expect(woken).toBe(true);
    await wakeups.close();
  });
});
