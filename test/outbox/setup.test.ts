import { DataSource } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import type { OutgoingEvent } from '../../src/events/outgoing-event.js';
import {
  COMMITBUS_ENTITIES,
  COMMITBUS_MIGRATIONS,
  OutboxNotConfiguredError,
  SendEventOp,
  silentLogger,
} from '../../src/index.js';
import { AddCommitbusOutboxOrder1764000000000 } from '../../src/outbox/add-outbox-order-columns.migration.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { Buses } from '../helpers/buses.js';
import { openSqlite, outboxRows, recordingBus } from '../helpers/outbox.js';
import { closeSchema, connectSchema, resetSchema } from '../helpers/postgres.js';
import {
  committedRecids,
  createRecord,
  RecordCreated,
  RecordRow,
  RecordUpdated,
} from '../helpers/records.js';

// Setting the outbox up: entities and table missing, the outbox turned off,
// and COMMITBUS_MIGRATIONS, on PostgreSQL and SQLite.
const SCHEMA = 'commitbus_test_outbox_setup';
const ENTITIES = [RecordRow, ...COMMITBUS_ENTITIES];
const buses = new Buses();

interface Database {
  /** A DataSource with `RecordRow`; without commitbus's entities when `commitbus` is false. */
  open(commitbus: boolean): Promise<DataSource>;
  close(dataSource: DataSource): Promise<void>;
  /** A fresh, empty DataSource that runs `COMMITBUS_MIGRATIONS` on initialize. */
  migrated(): Promise<DataSource>;
  /** Whether the database has a `commitbus_outbox` table. */
  hasOutboxTable(dataSource: DataSource): Promise<boolean>;
  /** Drops the `commitbus_outbox` table of `dataSource` (its schema's, on PostgreSQL). */
  dropOutboxTable(dataSource: DataSource): Promise<void>;
}

let schemaCount = 0;
const postgres: Database = {
  async open(commitbus) {
    const schema = `${SCHEMA}_${++schemaCount}`;
    await resetSchema(schema);
    return connectSchema(schema, { entities: commitbus ? ENTITIES : [RecordRow], synchronize: true });
  },
  close: closeSchema,
  async migrated() {
    const schema = `${SCHEMA}_migrated`;
    await resetSchema(schema);
    return connectSchema(schema, {
      entities: [...COMMITBUS_ENTITIES],
      migrations: [...COMMITBUS_MIGRATIONS],
      migrationsRun: true,
      synchronize: false,
    });
  },
  async hasOutboxTable(dataSource) {
    const { schema } = dataSource.options as { schema: string };
    const found: unknown[] = await dataSource.query(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'commitbus_outbox'`,
      [schema],
    );
    return found.length === 1;
  },
  async dropOutboxTable(dataSource) {
    const { schema } = dataSource.options as { schema: string };
    await dataSource.query(`DROP TABLE ${schema}.commitbus_outbox`);
  },
};

const sqlite: Database = {
  open: (commitbus) => openSqlite([RecordRow], { commitbus }),
  close: (dataSource) => dataSource.destroy(),
  migrated: () =>
    new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [...COMMITBUS_ENTITIES],
      migrations: [...COMMITBUS_MIGRATIONS],
      migrationsRun: true,
      synchronize: false,
    }).initialize(),
  async hasOutboxTable(dataSource) {
    const found: unknown[] = await dataSource.query(
      `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'commitbus_outbox'`,
    );
    return found.length === 1;
  },
  async dropOutboxTable(dataSource) {
    await dataSource.query('DROP TABLE commitbus_outbox');
  },
};

describe.each([
  ['PostgreSQL', postgres],
  ['SQLite', sqlite],
] as const)('outbox setup on %s', (_name, db) => {
  const opened: DataSource[] = [];
  const open = async (commitbus: boolean) => {
    const ds = await db.open(commitbus);
    opened.push(ds);
    return ds;
  };
  afterEach(async () => {
    await buses.closeAll();
    for (const ds of opened.splice(0)) await db.close(ds);
  });

  it('without COMMITBUS_ENTITIES a unit of work with events rolls back with OutboxNotConfiguredError; one without events commits', async () => {
    const plain = await open(false);
    const { transport, uows } = recordingBus(buses, plain);
    const failing = uows.run((uow) => createRecord(uow, 'a'));
    await expect(failing).rejects.toBeInstanceOf(OutboxNotConfiguredError);
    await expect(failing).rejects.toMatchObject({ code: 'COMMITBUS_OUTBOX_NOT_CONFIGURED' });
    await expect(failing).rejects.toThrow(
      /the DataSource does not know the commitbus_outbox entity\. Add COMMITBUS_ENTITIES/,
    );
    expect(transport.attempts).toBe(0);
    expect(await committedRecids(plain)).toEqual([]);

    await uows.run(async (uow) => {
      await uow.manager.insert(RecordRow, { recid: 'no events' });
    });
    expect(await committedRecids(plain)).toEqual(['no events']);
  });

  it('with the entity but no table, the unit of work rolls back with OutboxNotConfiguredError keeping the cause', async () => {
    const ds = await open(true);
    await db.dropOutboxTable(ds);
    const { transport, uows } = recordingBus(buses, ds);
    const error = await uows.run((uow) => createRecord(uow, 'a')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboxNotConfiguredError);
    expect((error as Error).message).toMatch(
      /^the transactional outbox is on but the commitbus_outbox table/,
    );
    expect((error as Error).cause).toBeDefined();
    expect(transport.attempts).toBe(0);
    expect(await committedRecids(ds)).toEqual([]);
  });

  it('outbox: false publishes after commit without touching the table', async () => {
    const noTable = await open(true);
    await db.dropOutboxTable(noTable);
    const { transport, bus, uows } = recordingBus(buses, noTable, 0, { outbox: false });
    expect(bus.outbox).toBeUndefined();
    await uows.run((uow) => createRecord(uow, 'a'));
    expect(transport.sent()).toEqual(['RECORD.CREATE:a']);
    expect(await committedRecids(noTable)).toEqual(['a']);

    const withTable = await open(true);
    const other = recordingBus(buses, withTable, 0, { outbox: false });
    await other.uows.run((uow) => createRecord(uow, 'b'));
    expect(other.transport.sent()).toEqual(['RECORD.CREATE:b']);
    expect(await outboxRows(withTable)).toEqual([]);
  });

  it('COMMITBUS_MIGRATIONS create a working outbox table matching the entity; down drops it', async () => {
    const ds = await db.migrated();
    try {
      expect(await db.hasOutboxTable(ds)).toBe(true);
      const { upQueries } = await ds.driver.createSchemaBuilder().log();
      expect(upQueries.map((q) => q.query).filter((q) => q.includes('commitbus_outbox'))).toEqual([]);

      const { transport, bus, uows } = recordingBus(buses, ds);
      const first = RecordCreated.create({ recid: 'm1' });
      const second = RecordUpdated.create({ recid: 'm1' });
      await uows.run(async (uow) => {
        uow.register(new SendEventOp(first));
        uow.register(new SendEventOp(second));
      });
      expect(transport.batches.map((batch) => batch.map((e) => e.id))).toEqual([[first.id, second.id]]);
      await bus.outbox?.flush();
      expect(await outboxRows(ds)).toEqual([]);

      // A left row, with a delivery time, goes through the relay's query and comes back intact.
      const deliverAt = Date.now() + 86_400_000;
      const left = RecordCreated.create({ recid: 'm2' });
      const outbox = new Outbox(ds, { graceMs: 0, relayBatchSize: 10 }, silentLogger);
      await outbox.write(ds.manager, [{ ...bus.encode(left), handlingKey: left.handlingKey, deliverAt }]);
      const relayed: OutgoingEvent[] = [];
      expect(await outbox.relayOnce(async (events) => void relayed.push(...events))).toBe(1);
      expect(relayed).toEqual([{ id: left.id, payload: bus.encode(left).payload, deliverAt }]);
      expect(await outboxRows(ds)).toEqual([]);

      await buses.closeAll();
      for (const _ of COMMITBUS_MIGRATIONS) await ds.undoLastMigration();
      expect(await db.hasOutboxTable(ds)).toBe(false);
      expect(await ds.showMigrations()).toBe(true);
    } finally {
      await db.close(ds);
    }
  });

  it('the order-columns migration keeps the rows already there and fills in the key and position of ordered rows an earlier version wrote', async () => {
    const ds = await db.migrated();
    try {
      // Back to the outbox table as an earlier version left it: undo the order-columns migration and those after it.
      const after =
        COMMITBUS_MIGRATIONS.length - COMMITBUS_MIGRATIONS.indexOf(AddCommitbusOutboxOrder1764000000000);
      for (let i = 0; i < after; i++) await ds.undoLastMigration();
      const bus = buses.create({ events: [RecordCreated, RecordUpdated] });
      const envelope = (event: RecordCreated | RecordUpdated) =>
        JSON.parse(bus.encode(event).payload) as Record<string, unknown>;
      const plain = RecordCreated.create({ recid: 'plain' });
      const ordered = RecordUpdated.create({ recid: 'ordered' });
      const lookalike = RecordCreated.create({ recid: 'lookalike' });
      const rows = [
        [plain, JSON.stringify(envelope(plain))],
        [ordered, JSON.stringify({ ...envelope(ordered), order: { key: 'record:ordered', position: 7 } })],
        // An event field named `order` is not the envelope's.
        [
          lookalike,
          JSON.stringify({
            ...envelope(lookalike),
            event: { ...(envelope(lookalike).event as object), order: { key: 'no' } },
          }),
        ],
      ] as const;
      const { schema } = ds.options as { schema?: string };
      const table = schema === undefined ? 'commitbus_outbox' : `${schema}.commitbus_outbox`;
      const marks = [0, 1, 2, 3, 4].map((i) => ds.driver.createParameter(`p${i}`, i)).join(', ');
      for (const [i, [event, payload]] of rows.entries()) {
        await ds.query(
          `INSERT INTO ${table} (event_id, created_at, position, handling_key, payload) VALUES (${marks})`,
          [event.id, 1_000, i, event.handlingKey, payload],
        );
      }

      await ds.runMigrations();
      const outbox = new Outbox(ds, { graceMs: 0, relayBatchSize: 10 }, silentLogger);
      const relayed: OutgoingEvent[] = [];
      expect(await outbox.relayOnce(async (events) => void relayed.push(...events))).toBe(3);
      expect(relayed).toEqual([
        { id: plain.id, payload: rows[0][1] },
        { id: ordered.id, payload: rows[1][1], lane: 's|record:ordered', position: 7 },
        { id: lookalike.id, payload: rows[2][1] },
      ]);
    } finally {
      await db.close(ds);
    }
  });
});
