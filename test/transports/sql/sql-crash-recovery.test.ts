/**
 * What a worker that died or stalled leaves on the SQL transport, on
 * PostgreSQL and SQLite: an expired lease claimed again counts a delivery,
 * work handed out more than `maxDeliveries` times is given up as a `crashed`
 * dead letter without running, and a claim that was superseded (its worker
 * ran past its lease and another claimed the work) cannot acknowledge,
 * complete or dead-letter it. A worker's death is what it leaves in the
 * tables: rows locked by a worker that never comes back.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { defineHandler, type EventHandlersConfig } from '../../../src/index.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import type { SqlTransport } from '../../../src/transports/sql/sql.transport.js';
import type { SqlWakeups } from '../../../src/transports/sql/sql-wakeups.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { recordingLogger } from '../../helpers/recording-logger.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

const quiet: SqlWakeups = {
  notifyIn: async () => {},
  notification: () => ['commitbus_quiet', 'events'],
  local: () => {},
  wait: async () => {},
  interrupt: () => {},
  resume: () => {},
  close: async () => {},
};

describe.each(['postgres', 'sqlite'] as const)('crash recovery on the SQL transport (%s)', (which) => {
  const transport = () => sqlTransport({ dataSource: databases[which], pollMs: 20 });
  const db = () => new SqlDb(databases[which]);
  const name = () => `crash${randomBytes(4).toString('hex')}`;

  it("an expired event lease claimed again counts a delivery, and the first claim's ack deletes nothing", async () => {
    const log = new SqlEventLog(db(), name(), {
      dedupeWindowMs: 60_000,
      wakeups: quiet,
      lanes: async () => undefined,
    });
    await log.append([{ id: 'e1', payload: 'p1' }]);
    const [first] = await log.read('drain-1', 10, 0);
    expect(first?.deliveries).toBe(1);
    const second = await log.claimStale('drain-2', 0);
    expect(second?.deliveries).toBe(2);
    expect(second?.entryId).not.toBe(first?.entryId);
    await log.ack([first?.entryId ?? '']);
    expect(await log.backlog()).toBe(1);
    await log.ack([second?.entryId ?? '']);
    expect(await log.backlog()).toBe(0);
  });

  it('an event whose drains died maxDeliveries times is kept as a crashed dead letter, its handlers not run', async () => {
    const bus = name();
    const ran: string[] = [];
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [[defineHandler<RecordCreated>('index', (e) => void ran.push(e.recid)), true]],
    };
    const config = fastConfig({
      name: bus,
      outbox: { enabled: false },
      handlers: { maxDeliveries: 2 },
      drains: { claimStaleAfterMs: 50 },
    });
    const publisher = buses.create({ events: [...TEST_EVENTS], handlers, config, transport: transport() });
    await publisher.publish([recordCreated('killer')]);
    const events = db().table('commitbus_events');
    // Two drains took it and died: locked long ago, handed out twice.
    await db().execute(
      `UPDATE ${events} SET locked_by = 'dead', locked_at = 0, deliveries = 2, lease = 'gone' WHERE bus = ?`,
      [bus],
    );
    const { bus: worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config,
      transport: transport(),
    });
    await waitFor('the crashed dead letter', async () => (await worker.deadLetters.list()).length === 1);
    const [letter] = await worker.deadLetters.list();
    expect([letter?.handler, letter?.reason]).toEqual(['index', 'crashed']);
    expect(ran).toEqual([]);
    await worker.whenIdle(10_000);
    expect(await db().query(`SELECT id FROM ${events} WHERE bus = ?`, [bus])).toEqual([]);
  });

  it('a handler job whose workers died maxDeliveries times is kept as a crashed dead letter, its handler not run', async () => {
    const bus = name();
    const ran: string[] = [];
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [[defineHandler<RecordCreated>('mail', (e) => void ran.push(e.recid)), false]],
    };
    const config = fastConfig({ name: bus, outbox: { enabled: false }, handlers: { maxDeliveries: 2 } });
    const publisher = buses.create({ events: [...TEST_EVENTS], handlers, config, transport: transport() });
    await publisher.publish([recordCreated('killer')]);
    const sql = db();
    const events = sql.table('commitbus_events');
    const jobs = sql.table('commitbus_jobs');
    // The job the drain would make, as two workers that died running it left it.
    const [row] = await sql.query<{ payload: string }>(`SELECT payload FROM ${events} WHERE bus = ?`, [bus]);
    await sql.execute(`DELETE FROM ${events} WHERE bus = ?`, [bus]);
    await (publisher.transport as SqlTransport).jobs.enqueue([
      {
        kind: 'async',
        jobId: 'mail:killer',
        payload: row?.payload ?? '',
        handler: 'mail',
        attempts: 3,
        backoff: { type: 'fixed', delayMs: 10 },
        delayMs: 0,
      },
    ]);
    await sql.execute(
      `UPDATE ${jobs} SET locked_by = 'dead', locked_until = 0, deliveries = 2, lease = 'gone' WHERE bus = ?`,
      [bus],
    );
    const { bus: worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config,
      transport: transport(),
    });
    await waitFor('the crashed dead letter', async () => (await worker.deadLetters.list()).length === 1);
    const [letter] = await worker.deadLetters.list();
    expect([letter?.handler, letter?.reason]).toEqual(['mail', 'crashed']);
    expect(ran).toEqual([]);
    await worker.whenIdle(10_000);
    expect(await sql.query(`SELECT job_id FROM ${jobs} WHERE bus = ?`, [bus])).toEqual([]);
  });

  it('a job run whose lease another worker claimed neither completes the job nor dead-letters it', async () => {
    const bus = name();
    const logger = recordingLogger();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [
          defineHandler<RecordCreated>('slow', async (e) => {
            started.push(e.recid);
            await held;
            if (e.recid === 'fails') throw new Error('fails on its only attempt');
          }),
          false,
        ],
      ],
    };
    const config = fastConfig({ name: bus, outbox: { enabled: false }, handlers: { attempts: 1 } });
    const { bus: worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config,
      transport: transport(),
      logger,
    });
    await worker.publish([recordCreated('fails'), recordCreated('succeeds')]);
    await waitFor('both jobs to run', () => started.length === 2);
    // Another worker's claim, as if this one had stalled past its lease.
    const jobs = db().table('commitbus_jobs');
    await db().execute(
      `UPDATE ${jobs} SET locked_by = 'other', lease = 'theirs', locked_until = locked_until + 600000 WHERE bus = ?`,
      [bus],
    );
    release();
    const superseded = () =>
      logger.messages('warn').filter((m) => m.startsWith('handler job ran past its lease')).length;
    await waitFor('both runs to find their lease taken', () => superseded() === 2);
    expect(await worker.deadLetters.list()).toEqual([]);
    const left = await db().query<{ lease: string }>(`SELECT lease FROM ${jobs} WHERE bus = ?`, [bus]);
    expect(left.map((r) => r.lease)).toEqual(['theirs', 'theirs']);
    await db().execute(`DELETE FROM ${jobs} WHERE bus = ?`, [bus]);
  });
});
