/**
 * A bus on the SQL transport, end to end on PostgreSQL and SQLite: events
 * published by one bus are handled by the worker of another bus on the same
 * database (as another process would), sync handlers in the drain and async
 * ones as jobs, a failing handler retried until it succeeds, one that keeps
 * failing kept as a dead letter, and the tables empty once all is done.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineHandler, type EventHandlersConfig } from '../../../src/index.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

let n = 0;

describe.each(['postgres', 'sqlite'] as const)('a bus on the SQL transport (%s)', (which) => {
  const transport = () => sqlTransport({ dataSource: databases[which], pollMs: 50 });

  it('hands events published by one bus to the worker of another, sync and async, with retries and dead letters', async () => {
    const name = `sqlbus${++n}`;
    const seen: string[] = [];
    let flaky = 0;
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [defineHandler<RecordCreated>('index', (e) => void seen.push(`index:${e.recid}`)), true],
        [defineHandler<RecordCreated>('mail', (e) => void seen.push(`mail:${e.recid}`)), false],
        [
          defineHandler<RecordCreated>('flaky', (e) => {
            if (e.recid === 'r1' && ++flaky < 3) throw new Error('not yet');
            seen.push(`flaky:${e.recid}`);
          }),
          false,
        ],
        [
          defineHandler<RecordCreated>('broken', () => {
            throw new Error('always');
          }),
          false,
        ],
      ],
    };
    const config = fastConfig({ name, outbox: { enabled: false }, handlers: { attempts: 3 } });
    const { bus: worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config,
      transport: transport(),
    });
    const publisher = buses.create({ events: [...TEST_EVENTS], handlers, config, transport: transport() });
    await publisher.publish([recordCreated('r1'), recordCreated('r2')]);
    await waitFor('every handler to run', () => seen.length === 6);
    expect(seen.sort()).toEqual(['flaky:r1', 'flaky:r2', 'index:r1', 'index:r2', 'mail:r1', 'mail:r2']);
    expect(flaky).toBe(3);
    await waitFor(
      'the broken handler to give up twice',
      async () => (await worker.deadLetters.list()).length === 2,
    );
    const letters = await publisher.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason, l.attempts.length])).toEqual([
      ['broken', 'exhausted', 3],
      ['broken', 'exhausted', 3],
    ]);
    await worker.whenIdle();
    const db = new SqlDb(databases[which]);
    const left = await db.query<{ events: unknown; jobs: unknown }>(
      `SELECT (SELECT count(*) FROM ${db.table('commitbus_events')} WHERE bus = ?) AS events,
              (SELECT count(*) FROM ${db.table('commitbus_jobs')} WHERE bus = ?) AS jobs`,
      [name, name],
    );
    expect(left.map((r) => [Number(r.events), Number(r.jobs)])).toEqual([[0, 0]]);
  });
});
