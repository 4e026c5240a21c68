/**
 * SQLite journal settings (issue 17): on a database file, the store puts the
 * file in WAL and its connection at `synchronous = FULL` (strato-db's
 * defaults) when first used; `sqliteWal: false` leaves both as the
 * DataSource opened them. A lone dispatch that fails on the writer's
 * one-transaction path leaves its event queued once, with its error, as the
 * usual path does. Real files in a temporary directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, EntitySchema } from 'typeorm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { StoreEventRowEntity } from '../../src/event-store/index.js';
import {
  COMMITBUS_ENTITIES,
  createEventStore,
  defineModel,
  type EventStore,
  EventStoreHaltedError,
  silentLogger,
} from '../../src/index.js';

interface Count {
  id: string;
  n: number;
}
const CountEntity = new EntitySchema<Count>({
  name: 'WalCount',
  tableName: 'wal_counts',
  columns: { id: { type: 'text', primary: true }, n: { type: 'integer' } },
});

let failing = false;
const counts = defineModel<Count>({
  entity: CountEntity,
  reducers: {
    TICK: async (event: { data: unknown }, { get }) => {
      if (failing) throw new Error('not now');
      const id = (event.data as { id: string }).id;
      return { sav: [{ id, n: ((await get(id))?.n ?? 0) + 1 }] };
    },
  },
});

let dir: string;
let n = 0;
const open: { store: EventStore; dataSource: DataSource }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'es-wal-'));
});
afterEach(async () => {
  for (const { store, dataSource } of open.splice(0)) {
    await store.close();
    await dataSource.destroy();
  }
  failing = false;
});
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function storeOnFile(options: { sqliteWal?: boolean } = {}) {
  const file = join(dir, `store-${++n}.sqlite`);
  const dataSource = await new DataSource({
    type: 'better-sqlite3',
    database: file,
    entities: [CountEntity, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
  const store = createEventStore({
    dataSource,
    models: [counts],
    logger: silentLogger,
    pollMs: 10,
    retryDelayMs: 60_000,
    ...options,
  });
  open.push({ store, dataSource });
  return { file, dataSource, store };
}

// Read on a connection of its own: the journal mode is the file's.
async function journalMode(file: string): Promise<string> {
  const other = await new DataSource({ type: 'better-sqlite3', database: file }).initialize();
  try {
    const [row] = (await other.query('PRAGMA journal_mode')) as { journal_mode: string }[];
    return row?.journal_mode ?? '?';
  } finally {
    await other.destroy();
  }
}

const synchronous = async (dataSource: DataSource) =>
  ((await dataSource.query('PRAGMA synchronous')) as { synchronous: number }[])[0]?.synchronous;

it('puts the file in WAL and the connection at synchronous FULL by default', async () => {
  const { file, dataSource, store } = await storeOnFile();
  expect(await journalMode(file)).toBe('delete');
  await store.start();
  expect(await journalMode(file)).toBe('wal');
  expect(await synchronous(dataSource)).toBe(2); // FULL
  expect((await store.dispatch('TICK', { id: 'a' })).v).toBe(1);
});

it('a process that only dispatches sets them too', async () => {
  const { file, dataSource, store } = await storeOnFile();
  await dataSource.query('PRAGMA synchronous = OFF');
  await store.dispatch('TICK', { id: 'a' }, { wait: false });
  expect(await journalMode(file)).toBe('wal');
  expect(await synchronous(dataSource)).toBe(2);
});

it('sqliteWal: false leaves the journal mode and synchronous as the DataSource opened them', async () => {
  const { file, dataSource, store } = await storeOnFile({ sqliteWal: false });
  await dataSource.query('PRAGMA synchronous = NORMAL');
  await store.start();
  expect((await store.dispatch('TICK', { id: 'a' })).v).toBe(1);
  expect(await journalMode(file)).toBe('delete');
  expect(await synchronous(dataSource)).toBe(1);
});

it('a lone dispatch whose event fails leaves it queued once with its error, and a retry applies it once', async () => {
  const { dataSource, store } = await storeOnFile();
  await store.start();
  await store.dispatch('TICK', { id: 'a' });
  failing = true;
  await expect(store.dispatch('TICK', { id: 'a' })).rejects.toBeInstanceOf(EventStoreHaltedError);
  const rows = await dataSource.getRepository(StoreEventRowEntity).find({ order: { v: 'ASC' } });
  expect(rows.map((r) => [r.v, r.status, r.attempts])).toEqual([
    [1, 'handled', 0],
    [2, 'queued', 1],
  ]);
  expect(JSON.parse(rows[1]?.error ?? 'null')).toMatchObject({ step: 'reduce', message: 'not now' });
  failing = false;
  await store.retry({ by: 'test', reason: 'fixed' });
  expect(await store.waitForQueue()).toBe(2);
  expect(await dataSource.getRepository(CountEntity).findOneBy({ id: 'a' })).toEqual({ id: 'a', n: 2 });
});
