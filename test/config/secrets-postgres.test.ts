/**
 * A PostgreSQL password in the DataSource's URL (as `DATABASE_URL` gives it)
 * shows in nothing commitbus throws or logs. The local server trusts every
 * connection, so a wrong password cannot be refused here: these tests check
 * commitbus's own surfaces instead — a unit of work whose SQL fails, the
 * outbox relay failing on a missing table, each with the password in the URL
 * the DataSource was built from. pg puts no password in its errors; commitbus
 * never reads the DataSource's options into a message or a log line.
 */
import { inspect } from 'node:util';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMMITBUS_ENTITIES,
  createEventBus,
  type EventBus,
  SendEventOp,
  withUnitOfWork,
} from '../../src/index.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { PG, resetSchema } from '../helpers/postgres.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { waitFor } from '../helpers/wait-for.js';

const SCHEMA = 'i12config_secrets';
const PASSWORD = 'i12config-Pg/pw%sec@ret';
const URL_WITH_PASSWORD = `postgres://${PG.user}:${encodeURIComponent(PASSWORD)}@${PG.host}:${PG.port}/${PG.database}`;

function expectNoSecret(shown: string): void {
  expect(shown).not.toContain(PASSWORD);
  expect(shown).not.toContain(encodeURIComponent(PASSWORD));
  expect(shown).not.toContain('Pg/pw');
}

function shown(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  let json = '';
  try {
    json = JSON.stringify(error);
  } catch {
    json = '';
  }
  return [String(error), message, inspect(error, { depth: Number.POSITIVE_INFINITY }), json].join('\n');
}

let dataSource: DataSource;
let bus: EventBus;
const logger = recordingLogger();

beforeAll(async () => {
  await resetSchema(SCHEMA);
  dataSource = await new DataSource({
    type: 'postgres',
    url: URL_WITH_PASSWORD,
    schema: SCHEMA,
    entities: [...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
  bus = createEventBus({
    events: TEST_EVENTS,
    dataSource,
    logger,
    config: { outbox: { graceMs: 1, relayEveryMs: 20 } },
  });
});

afterAll(async () => {
  await bus.close();
  await dataSource.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await dataSource.destroy();
});

describe('a PostgreSQL password in the DataSource URL', () => {
  it('is in nothing a failing unit of work throws', async () => {
    const error = await withUnitOfWork({ dataSource, bus }, async (uow) => {
      uow.register(new SendEventOp(recordCreated('pg-secret')));
      await uow.manager.query('SELECT * FROM i12config_no_such_table');
    }).then(
      () => expect.unreachable('the unit of work should fail'),
      (e: unknown) => e,
    );
    expect(String(error)).toContain('i12config_no_such_table');
    expectNoSecret(shown(error));
  });

  it('is in nothing the outbox relay logs when its table is gone', async () => {
    // Dropped once the worker runs: a worker refuses to start without the table.
    const worker = await bus.startWorker({ handleSignals: false });
    await dataSource.query(`DROP TABLE ${SCHEMA}.commitbus_outbox`);
    await waitFor('the relay to log its failure', () =>
      logger.json().some((l) => l.includes('commitbus_outbox')),
    );
    await worker.close();
    expectNoSecret(logger.json().join('\n'));
  });
});
