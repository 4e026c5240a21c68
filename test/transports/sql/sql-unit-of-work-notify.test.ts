/**
 * The wake-up of events a unit of work wrote in its own transaction on
 * PostgreSQL: the `NOTIFY` is sent inside the committing transaction, so a
 * `LISTEN`ing connection hears it when, and only when, that transaction
 * commits. Just before COMMIT the listener has heard nothing of it (a
 * marker notified from another connection at that moment arrives first) and
 * no other connection sees the row; a COMMIT the database refuses sends
 * nothing at all.
 */
import pg from 'pg';
import type { EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SendEventOp, UnitOfWorkManager } from '../../../src/index.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { WAKEUP_CHANNEL } from '../../../src/transports/sql/sql-pg-listener.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { PG } from '../../helpers/postgres.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { busRows, createRecordsTable, insertRecord } from '../../helpers/sql-uow.js';
import { waitFor } from '../../helpers/wait-for.js';

const { postgres: dataSource } = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

// A connection of its own that LISTENs, as another process's worker would, and one that sends markers.
const listener = new pg.Client(PG);
const marker = new pg.Client(PG);
const heard: string[] = [];
// What to do just before the COMMIT of a unit of work's transaction (its query runner), once.
const beforeCommit = new Map<QueryRunner, () => Promise<void>>();

beforeAll(async () => {
  await createRecordsTable(dataSource);
  await Promise.all([listener.connect(), marker.connect()]);
  listener.on('notification', (message) => void heard.push(message.payload ?? ''));
  await listener.query(`LISTEN ${WAKEUP_CHANNEL}`);
  const subscriber: EntitySubscriberInterface = {
    beforeTransactionCommit: async ({ queryRunner }) => {
      const hook = beforeCommit.get(queryRunner);
      beforeCommit.delete(queryRunner);
      await hook?.();
    },
  };
  (dataSource.subscribers as EntitySubscriberInterface[]).push(subscriber);
});
afterAll(async () => {
  await Promise.all([listener.end(), marker.end()]);
});

let n = 0;

/**
 * Notifies `marker` from another connection (committed at once) and waits
 * until the listener heard it: PostgreSQL delivers notifications in commit
 * order, so what it heard before the marker is all it will ever have heard
 * of transactions committed before.
 */
async function heardUpTo(payload: string): Promise<string[]> {
  await marker.query('SELECT pg_notify($1, $2)', [WAKEUP_CHANNEL, payload]);
  await waitFor(`the listener to hear ${payload}`, () => heard.includes(payload));
  return heard.slice(0, heard.indexOf(payload));
}

function openBus() {
  const name = `sqlnotify${++n}`;
  const bus = buses.create({
    events: [...TEST_EVENTS],
    config: fastConfig({ name }),
    transport: sqlTransport({ dataSource, pollMs: 50 }),
    dataSource,
  });
  return { name, wakeUp: `${name}|events`, units: new UnitOfWorkManager({ bus }) };
}

describe('the wake-up of events written in a unit of work (postgres)', () => {
  it('is heard by a LISTENing connection only once the transaction commits', async () => {
    const { name, wakeUp, units } = openBus();
    const event = recordCreated('n1');
    let atCommit: { heard: string[]; visible: number } | undefined;
    await units.run(async (uow) => {
      const runner = uow.manager.queryRunner as QueryRunner;
      beforeCommit.set(runner, async () => {
        // The event row and its NOTIFY are in the transaction now; COMMIT is next.
        atCommit = {
          heard: await heardUpTo(`${name}|marker`),
          visible: (await busRows(dataSource, name, [event.id])).events,
        };
      });
      await insertRecord(uow, 'n1');
      await uow.register(new SendEventOp(event));
    });
    expect(atCommit).toEqual({ heard: expect.not.arrayContaining([wakeUp]), visible: 0 });
    await waitFor('the listener to hear the commit', () => heard.includes(wakeUp));
    expect(heard.indexOf(wakeUp)).toBeGreaterThan(heard.indexOf(`${name}|marker`));
    expect((await busRows(dataSource, name, [event.id])).events).toBe(1);
  });

  it('is never heard when the database refuses the COMMIT', async () => {
    const { name, wakeUp, units } = openBus();
    const db = new SqlDb(dataSource);
    const [parents, children] = [db.table(`tx_parents_${name}`), db.table(`tx_children_${name}`)];
    await db.execute(`CREATE TABLE ${parents} (id integer PRIMARY KEY)`);
    await db.execute(
      `CREATE TABLE ${children} (id integer PRIMARY KEY,
         parent integer REFERENCES ${parents} (id) DEFERRABLE INITIALLY DEFERRED)`,
    );
    const event = recordCreated('n2');
    const refused = units.run(async (uow) => {
      await insertRecord(uow, 'n2');
      await db.within(uow.manager).execute(`INSERT INTO ${children} (id, parent) VALUES (1, 404)`);
      await uow.register(new SendEventOp(event));
    });
    await expect(refused).rejects.toThrow(/foreign key/i);
    expect(await heardUpTo(`${name}|after`)).not.toContain(wakeUp);
    expect(await busRows(dataSource, name, [event.id])).toEqual({ events: 0, ids: 0, outbox: 0 });
  });
});
