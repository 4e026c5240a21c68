import { DataSource, EntitySchema } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  COMMITBUS_ENTITIES,
  createEventStore,
  defineModel,
  type EventStore,
  type StoreEvent,
} from '../../src/index.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

// A write the database refuses when the batch flushes it (here a NOT NULL
// column left out of `set`), while a later model's writes for the same event
// still wait in the row cache: the event must halt with its error recorded,
// like any failing step, instead of failing the whole batch over and over.
const SCHEMA = 'commitbus_test_es_flush';

interface Labelled {
  id: string;
  label: string;
}
interface Counter {
  id: string;
  n: number;
}
const LabelledEntity = new EntitySchema<Labelled>({
  name: 'EsFlushLabelled',
  tableName: 'es_flush_labelled',
  columns: { id: { type: 'varchar', length: 40, primary: true }, label: { type: 'varchar', length: 40 } },
});
const CounterEntity = new EntitySchema<Counter>({
  name: 'EsFlushCounter',
  tableName: 'es_flush_counters',
  columns: { id: { type: 'varchar', length: 40, primary: true }, n: { type: 'integer' } },
});

type Tagged = StoreEvent<{ id: string; label?: string }>;
const models = [
  defineModel<Labelled>({
    name: 'labelled',
    entity: LabelledEntity,
    // `set` without `label` makes it NULL: refused by the database at flush.
    reducers: {
      TAGGED: (event: Tagged) => ({ set: [{ id: event.data.id, label: event.data.label as string }] }),
    },
  }),
  defineModel<Counter>({
    name: 'counters',
    entity: CounterEntity,
    reducers: {
      TAGGED: async (_event: Tagged, { get }) => ({
        sav: [{ id: 'tags', n: ((await get('tags'))?.n ?? 0) + 1 }],
      }),
    },
  }),
];

const sqlite = () =>
  new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [LabelledEntity, CounterEntity, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();

describe.each([
  ['PostgreSQL', () => openSchema(SCHEMA, [LabelledEntity, CounterEntity]), closeSchema],
  ['SQLite', sqlite, (d: DataSource) => d.destroy()],
] as const)('a write refused at flush on %s', (_name, open, close) => {
  let dataSource: DataSource | undefined;
  let store: EventStore | undefined;
  afterEach(async () => {
    await store?.close();
    if (dataSource !== undefined) await close(dataSource);
  });

  it('halts at that event with its error recorded; the events before it commit', async () => {
    dataSource = await open();
    const logged: string[] = [];
    const logger = { info: () => {}, warn: (_: object, m: string) => logged.push(m), error: () => {} };
    store = createEventStore({ dataSource, models, retryDelayMs: 60_000, logger });
    await store.start();
    const ok = await store.dispatch('TAGGED', { id: 'a', label: 'fine' }, { wait: false });
    const bad = store.dispatch('TAGGED', { id: 'b' });
    bad.catch(() => {});
    await waitFor('the store to halt at the bad event', async () => (await store?.halted()) !== undefined, {
      timeoutMs: 5_000,
      describe: () => logged.slice(-2),
    });
    await expect(bad).rejects.toMatchObject({ name: 'EventStoreHaltedError' });
    const halted = await store.halted();
    expect(halted).toMatchObject({ v: ok.v + 1, status: 'queued', attempts: 1, error: { step: 'apply' } });
    expect(halted?.error?.message).toMatch(/null/i);
    expect(await store.getVersion()).toBe(ok.v);
    expect(await dataSource.getRepository(CounterEntity).findOneBy({ id: 'tags' })).toEqual({
      id: 'tags',
      n: 1,
    });
  });
});
