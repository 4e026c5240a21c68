/**
 * A handler job whose last run fails while the database cannot take its
 * dead letter (a `TransportUnavailableError`, as a connection killed by
 * `pg_terminate_backend` gives) is not dropped: it runs again, and its dead
 * letter is kept once the database answers, on PostgreSQL and SQLite.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportAdapter } from '../../../src/bus/transport.js';
import { defineHandler, type EventHandlersConfig, TransportUnavailableError } from '../../../src/index.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

/** The SQL transport on `which`, whose first dead-letter write fails as a lost connection does. */
function transportLosingFirstDeadLetter(which: 'postgres' | 'sqlite'): TransportAdapter {
  const factory = sqlTransport({ dataSource: databases[which], pollMs: 50 });
  return {
    name: factory.name,
    open: (context) => {
      const transport = factory.open(context);
      const store = transport.deadLetters;
      const real = store.addWith.bind(store);
      let failed = false;
      store.addWith = async (runner, letters) => {
        if (failed) return real(runner, letters);
        failed = true;
        throw new TransportUnavailableError('run INSERT', transport.db.where(), {
          cause: new Error('Connection terminated unexpectedly'),
        });
      };
      return transport;
    },
  };
}

let n = 0;

describe.each(['postgres', 'sqlite'] as const)('a SQL job losing its dead letter write (%s)', (which) => {
  it('runs the job again and keeps its dead letter, instead of dropping it', async () => {
    const name = `sqldlout${which}${++n}`;
    let runs = 0;
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [
          defineHandler<RecordCreated>('broken', () => {
            runs++;
            throw new Error('always');
          }),
          false,
        ],
      ],
    };
    const config = fastConfig({ name, outbox: { enabled: false }, handlers: { attempts: 2 } });
    const { bus } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config,
      transport: transportLosingFirstDeadLetter(which),
    });
    await bus.publish([recordCreated('r1')]);
    await waitFor('the dead letter to be kept', async () => (await bus.deadLetters.list()).length === 1, {
      describe: () => ({ runs }),
    });
    const [letter] = await bus.deadLetters.list();
    expect([letter?.handler, letter?.reason]).toEqual(['broken', 'exhausted']);
    expect(runs).toBe(3);
    await bus.whenIdle();
    const db = new SqlDb(databases[which]);
    const [left] = await db.query<{ n: unknown }>(
      `SELECT count(*) AS n FROM ${db.table('commitbus_jobs')} WHERE bus = ?`,
      [name],
    );
    expect(Number(left?.n)).toBe(0);
  });
});
