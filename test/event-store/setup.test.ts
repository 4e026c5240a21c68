import { DataSource, EntitySchema } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStoreNotConfiguredError, EventStoreUsageError } from '../../src/event-store/index.js';
import {
  COMMITBUS_ENTITIES,
  COMMITBUS_MIGRATIONS,
  createEventStore,
  defineModel,
  type StoreEvent,
} from '../../src/index.js';
import { closeSchema, connectSchema, resetSchema } from '../helpers/postgres.js';

// Setting the event store up: COMMITBUS_MIGRATIONS create its tables as the
// entities describe them, on PostgreSQL and SQLite; a DataSource without them
// is refused with a message saying what to add.
const SCHEMA = 'commitbus_test_es_setup';

interface Counter {
  id: string;
  n: number;
}
const CounterEntity = new EntitySchema<Counter>({
  name: 'EsSetupCounter',
  tableName: 'es_setup_counters',
  columns: { id: { type: 'varchar', length: 40, primary: true }, n: { type: 'integer' } },
});
const counters = defineModel<Counter>({
  entity: CounterEntity,
  reducers: {
    TICK: async (event: StoreEvent<{ id: string }>, { get }) => ({
      sav: [{ id: event.data.id, n: ((await get(event.data.id))?.n ?? 0) + 1 }],
    }),
  },
});

interface Database {
  /** A fresh DataSource that ran COMMITBUS_MIGRATIONS (the counter table made by synchronize after). */
  migrated(): Promise<DataSource>;
  /** A fresh DataSource whose entities lack commitbus's, or whose tables were never made. */
  bare(entities: (typeof CounterEntity)[], withCommitbus: boolean): Promise<DataSource>;
  close(dataSource: DataSource): Promise<void>;
  tables(dataSource: DataSource): Promise<string[]>;
}

let count = 0;
const postgres: Database = {
  async migrated() {
    const schema = `${SCHEMA}_${++count}`;
    await resetSchema(schema);
    return connectSchema(schema, {
      entities: [CounterEntity, ...COMMITBUS_ENTITIES],
      migrations: [...COMMITBUS_MIGRATIONS],
      migrationsRun: true,
      synchronize: false,
    });
  },
  async bare(entities, withCommitbus) {
    const schema = `${SCHEMA}_${++count}`;
    await resetSchema(schema);
    return connectSchema(schema, { entities: [...entities, ...(withCommitbus ? COMMITBUS_ENTITIES : [])] });
  },
  close: closeSchema,
  async tables(dataSource) {
    const { schema } = dataSource.options as { schema: string };
    const rows: { table_name: string }[] = await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'commitbus_es_%' ORDER BY table_name`,
      [schema],
    );
    return rows.map((r) => r.table_name);
  },
};

const sqlite: Database = {
  migrated: () =>
    new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [CounterEntity, ...COMMITBUS_ENTITIES],
      migrations: [...COMMITBUS_MIGRATIONS],
      migrationsRun: true,
    }).initialize(),
  bare: (entities, withCommitbus) =>
    new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [...entities, ...(withCommitbus ? COMMITBUS_ENTITIES : [])],
    }).initialize(),
  close: (dataSource) => dataSource.destroy(),
  async tables(dataSource) {
    const rows: { name: string }[] = await dataSource.query(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'commitbus_es_%' ORDER BY name`,
    );
    return rows.map((r) => r.name);
  },
};

describe.each([
  ['PostgreSQL', postgres],
  ['SQLite', sqlite],
] as const)('event store setup on %s', (_name, db) => {
  const opened: DataSource[] = [];
  afterEach(async () => {
    for (const ds of opened.splice(0)) await db.close(ds);
  });

  it('COMMITBUS_MIGRATIONS create the three tables as the entities describe them; a store runs on them; down drops them', async () => {
    const ds = await db.migrated();
    opened.push(ds);
    expect(await db.tables(ds)).toEqual([
      'commitbus_es_events',
      'commitbus_es_state',
      'commitbus_es_subscriptions',
    ]);
    const { upQueries } = await ds.driver.createSchemaBuilder().log();
    expect(upQueries.map((q) => q.query).filter((q) => q.includes('commitbus_es_'))).toEqual([]);
    await ds.synchronize(); // the model's own table
    const store = createEventStore({ dataSource: ds, models: [counters] });
    await store.start();
    const first = await store.dispatch('TICK', { id: 'a' });
    const second = await store.dispatch('TICK', { id: 'a' });
    expect([first.v, second.v, second.status]).toEqual([1, 2, 'handled']);
    expect(await ds.getRepository(CounterEntity).find()).toEqual([{ id: 'a', n: 2 }]);
    await store.close();
    await ds.query(`DROP TABLE ${ds.getMetadata(CounterEntity).tablePath}`);
    for (const _ of COMMITBUS_MIGRATIONS) await ds.undoLastMigration();
    expect(await db.tables(ds)).toEqual([]);
  });

  it('a DataSource without COMMITBUS_ENTITIES is refused at createEventStore, saying what to add', async () => {
    const ds = await db.bare([CounterEntity], false);
    opened.push(ds);
    expect(() => createEventStore({ dataSource: ds, models: [counters] })).toThrow(
      EventStoreNotConfiguredError,
    );
    expect(() => createEventStore({ dataSource: ds, models: [counters] })).toThrow(/COMMITBUS_ENTITIES/);
  });

  it('entities without tables: start() fails with EventStoreNotConfiguredError naming the migrations, and dispatch queues nothing', async () => {
    const ds = await db.bare([CounterEntity], true);
    opened.push(ds);
    const store = createEventStore({ dataSource: ds, models: [counters] });
    const error = await store.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreNotConfiguredError);
    expect((error as Error).message).toMatch(/COMMITBUS_MIGRATIONS/);
    await expect(store.dispatch('TICK', { id: 'a' }, { wait: false })).rejects.toThrow(
      EventStoreNotConfiguredError,
    );
    await store.close();
  });

  it('a model whose table was never made: start() fails naming it, before any event can halt on it', async () => {
    const ds = await db.migrated(); // the store's tables, not the counters'
    opened.push(ds);
    const store = createEventStore({ dataSource: ds, models: [counters] });
    const error = await store.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreUsageError);
    expect((error as Error).message).toMatch(
      /model "EsSetupCounter"'s table "(\w+\.)?es_setup_counters" does not exist: create it/,
    );
    expect(store.isWriter).toBe(false);
    await store.close();
  });

  it('a model whose entity is not in the DataSource is refused, naming it', async () => {
    const ds = await db.bare([], true);
    opened.push(ds);
    expect(() => createEventStore({ dataSource: ds, models: [counters] })).toThrow(EventStoreUsageError);
    expect(() => createEventStore({ dataSource: ds, models: [counters] })).toThrow(
      /models\[0\]'s entity is not in the DataSource/,
    );
  });
});

it('a DataSource of another database is refused: the store runs on PostgreSQL or SQLite', () => {
  // Only its options are read before the refusal; no MySQL driver is installed here.
  const mysql = { options: { type: 'mysql' } } as unknown as DataSource;
  expect(() => createEventStore({ dataSource: mysql, models: [] })).toThrow(EventStoreNotConfiguredError);
  expect(() => createEventStore({ dataSource: mysql, models: [] })).toThrow(
    /runs on PostgreSQL .* or SQLite/,
  );
});
