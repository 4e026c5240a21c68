import type { DataSource } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMITBUS_ENTITIES, OutboxNotConfiguredError } from '../../src/index.js';
import { Buses } from '../helpers/buses.js';
import { OUTBOX_TEST_EVENTS, openSqlite } from '../helpers/outbox.js';
import { closeSchema, connectSchema, resetSchema } from '../helpers/postgres.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { RecordingTransport, RecordRow } from '../helpers/records.js';
import { waitFor } from '../helpers/wait-for.js';

// A missing outbox table is found when the bus or its worker starts, not at
// the first commit: the worker refuses to start, and a bus without a worker
// logs the coded error at once.
const SCHEMA = 'commitbus_test_outbox_startup';
const buses = new Buses();

interface Database {
  /** A DataSource with `RecordRow`, commitbus's entities if `commitbus`, and no outbox table if `dropTable`. */
  open(commitbus: boolean, dropTable: boolean): Promise<DataSource>;
  close(dataSource: DataSource): Promise<void>;
  /** How the missing table is named in the error. */
  table: RegExp;
}

let schemaCount = 0;
const postgres: Database = {
  async open(commitbus, dropTable) {
    const schema = `${SCHEMA}_${++schemaCount}`;
    await resetSchema(schema);
    const entities = commitbus ? [RecordRow, ...COMMITBUS_ENTITIES] : [RecordRow];
    const ds = await connectSchema(schema, { entities, synchronize: true });
    if (dropTable) await ds.query(`DROP TABLE ${schema}.commitbus_outbox`);
    return ds;
  },
  close: closeSchema,
  table: new RegExp(`the table ${SCHEMA}_\\d+\\.commitbus_outbox does not exist`),
};
const sqlite: Database = {
  async open(commitbus, dropTable) {
    const ds = await openSqlite([RecordRow], { commitbus });
    if (dropTable) await ds.query('DROP TABLE commitbus_outbox');
    return ds;
  },
  close: (ds) => ds.destroy(),
  table: /the table commitbus_outbox does not exist/,
};

describe.each([
  ['PostgreSQL', postgres],
  ['SQLite', sqlite],
] as const)('a missing outbox on %s', (_name, db) => {
  const opened: DataSource[] = [];
  const open = async (commitbus: boolean, dropTable: boolean) => {
    const ds = await db.open(commitbus, dropTable);
    opened.push(ds);
    return ds;
  };
  afterEach(async () => {
    await buses.closeAll();
    for (const ds of opened.splice(0)) await db.close(ds);
  });

  it('a worker refuses to start when the table is missing, naming it and how to create it', async () => {
    const ds = await open(true, true);
    const bus = buses.create({ events: OUTBOX_TEST_EVENTS, dataSource: ds }, new RecordingTransport());
    const error = await bus.startWorker({ handleSignals: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboxNotConfiguredError);
    expect(error).toMatchObject({ code: 'COMMITBUS_OUTBOX_NOT_CONFIGURED' });
    expect((error as Error).message).toMatch(db.table);
    expect((error as Error).message).toMatch(/COMMITBUS_ENTITIES.*COMMITBUS_MIGRATIONS/);
  });

  it('a worker refuses to start when the DataSource lacks the outbox entity', async () => {
    const ds = await open(false, false);
    const bus = buses.create({ events: OUTBOX_TEST_EVENTS, dataSource: ds }, new RecordingTransport());
    const error = await bus.startWorker({ handleSignals: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboxNotConfiguredError);
    expect((error as Error).message).toMatch(/the DataSource does not know the commitbus_outbox entity/);
  });

  it('a bus without a worker logs the coded error as it starts, before any unit of work', async () => {
    const ds = await open(true, true);
    const logger = recordingLogger();
    buses.create({ events: OUTBOX_TEST_EVENTS, dataSource: ds, logger }, new RecordingTransport());
    await waitFor('the missing outbox logged', () => logger.at('error').length > 0);
    expect(logger.at('error')[0]?.fields).toMatchObject({ code: 'COMMITBUS_OUTBOX_NOT_CONFIGURED' });
    expect(logger.at('error')[0]?.message).toMatch(db.table);
    expect(logger.at('error')[0]?.message).toMatch(/looks again every outbox\.relayEveryMs/);
  });

  it("bus.status() names the missing table or entity with the coded error, not TypeORM's", async () => {
    for (const [commitbus, dropTable, message] of [
      [true, true, db.table],
      [false, false, /the DataSource does not know the commitbus_outbox entity/],
    ] as const) {
      const ds = await open(commitbus, dropTable);
      const bus = buses.create(
        { events: OUTBOX_TEST_EVENTS, dataSource: ds, logger: recordingLogger() },
        new RecordingTransport(),
      );
      const error = await bus.status().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutboxNotConfiguredError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('with the table in place the worker starts and nothing is logged', async () => {
    const ds = await open(true, false);
    const logger = recordingLogger();
    const bus = buses.create(
      { events: OUTBOX_TEST_EVENTS, dataSource: ds, logger },
      new RecordingTransport(),
    );
    const worker = await bus.startWorker({ handleSignals: false });
    await worker.close();
    expect(logger.at('error')).toEqual([]);
  });

  it('outbox off: a worker starts without the table', async () => {
    const ds = await open(true, true);
    const bus = buses.create(
      { events: OUTBOX_TEST_EVENTS, dataSource: ds, config: { outbox: false } },
      new RecordingTransport(),
    );
    const worker = await bus.startWorker({ handleSignals: false });
    await worker.close();
    expect(bus.outbox).toBeUndefined();
  });
});
