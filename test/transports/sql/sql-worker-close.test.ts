/**
 * A SQL worker closed while its claims are in flight (the statements wait on
 * a table lock on PostgreSQL) stops once they return: neither the drain's
 * `blockMs` nor the job runner's `pollMs` is waited out after a close.
 */
import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMMITBUS_ENTITIES, defineHandler, type EventHandlersConfig } from '../../../src/index.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { closeSchema, PG, resetSchema } from '../../helpers/postgres.js';
import { waitFor } from '../../helpers/wait-for.js';

const APP = `cb-close-${process.pid}`;
const SCHEMA = `cb_close_${process.pid}`;
const dataSource = new DataSource({
  type: 'postgres',
  ...PG,
  username: PG.user,
  schema: SCHEMA,
  applicationName: APP,
  entities: [...COMMITBUS_ENTITIES],
  synchronize: true,
});
beforeAll(async () => {
  await resetSchema(SCHEMA);
  await dataSource.initialize();
});
afterAll(() => closeSchema(dataSource));
const buses = new Buses();
afterEach(() => buses.closeAll());

/** How many of the worker's connections are LISTENing, or waiting on a lock. */
async function connections(admin: pg.Client, what: 'listen' | 'lock'): Promise<number> {
  const where = what === 'listen' ? "query ILIKE 'LISTEN%'" : "wait_event_type = 'Lock'";
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND ${where}`,
    [APP],
  );
  return Number(rows[0]?.n ?? 0);
}

describe('closing a SQL worker while it claims (postgres)', () => {
  it('returns once the claims in flight return, without waiting out blockMs or pollMs', async () => {
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [[defineHandler<RecordCreated>('noop', () => {}), false]],
    };
    const config = fastConfig({
      name: `sqlclose${process.pid}`,
      outbox: { enabled: false },
      drains: { blockMs: 3_600_000, ttlMs: 3_600_000 },
    });
    const db = new SqlDb(dataSource);
    const { worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config,
      transport: sqlTransport({ dataSource, pollMs: 3_600_000, drains: 1 }),
    });
    const admin = new pg.Client(PG);
    const waker = new pg.Client(PG);
    await Promise.all([admin.connect(), waker.connect()]);
    try {
      await waitFor('the worker to LISTEN', async () => (await connections(admin, 'listen')) === 1);
      await admin.query('BEGIN');
      await admin.query(
        `LOCK TABLE ${db.table('commitbus_events')}, ${db.table('commitbus_jobs')} IN ACCESS EXCLUSIVE MODE`,
      );
      // Wake both loops (one drain, the job runner: an events wake-up wakes one drain): their claims then wait on the lock.
      for (const topic of ['events', 'jobs'])
        await waker.query('SELECT pg_notify($1, $2)', ['commitbus', `${config.name}|${topic}`]);
      await waitFor('both claims to wait on the lock', async () => (await connections(admin, 'lock')) === 2);
      let closed = false;
      const closing = worker.close().then(() => {
        closed = true;
      });
      await admin.query('COMMIT');
      await waitFor('the worker to close', () => closed, { timeoutMs: 5_000 });
      await closing;
      expect(closed).toBe(true);
    } finally {
      await admin.query('ROLLBACK').catch(() => {});
      await Promise.all([admin.end(), waker.end()]);
    }
  });

  it('returns after the shutdown time and a grace while a claim still waits on a database that does not answer', async () => {
    const config = fastConfig({
      name: `sqlhang${process.pid}`,
      outbox: { enabled: false },
      shutdownTimeoutMs: 300,
      drains: { blockMs: 3_600_000, ttlMs: 3_600_000 },
    });
    const db = new SqlDb(dataSource);
    const { worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers: { 'RECORD.CREATE': [[defineHandler<RecordCreated>('noop', () => {}), false]] },
      config,
      transport: sqlTransport({ dataSource, pollMs: 3_600_000, drains: 1 }),
    });
    const admin = new pg.Client(PG);
    const waker = new pg.Client(PG);
    await Promise.all([admin.connect(), waker.connect()]);
    try {
      await waitFor('the worker to LISTEN', async () => (await connections(admin, 'listen')) >= 1);
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE ${db.table('commitbus_events')} IN ACCESS EXCLUSIVE MODE`);
      await waker.query('SELECT pg_notify($1, $2)', ['commitbus', `${config.name}|events`]);
      await waitFor('the claim to wait on the lock', async () => (await connections(admin, 'lock')) >= 1);
      let closed = false;
      const closing = worker.close().then(() => {
        closed = true;
      });
      // The lock is held all along: only the bound ends the close.
      await waitFor('the worker to close with the claim still waiting', () => closed, { timeoutMs: 10_000 });
      expect(await connections(admin, 'lock')).toBeGreaterThanOrEqual(1);
      await closing;
    } finally {
      await admin.query('ROLLBACK').catch(() => {});
      await Promise.all([admin.end(), waker.end()]);
    }
  });
});
