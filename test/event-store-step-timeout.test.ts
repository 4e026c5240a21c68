/**
 * The event store's step timeout (`stepTimeoutMs`) with other work going on:
 * dispatches and operator actions racing the hang, an abandoned callback
 * that carries on, a pool of two, a replay. Real PostgreSQL (a schema per
 * test) and SQLite files (read back through a second connection, so what
 * counts is what was committed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  COMMITBUS_ENTITIES,
  createEventStore,
  defineModel,
  type EventStore,
  EventStoreHaltedError,
  type StoreEvent,
} from '../src/index.js';
import { type AtkCounter, AtkCounterEntity, capturingLogger } from './helpers/es-attack-bed.js';
import { closeSchema, openSchema } from './helpers/postgres.js';

const SCHEMA = `commitbus_test_es_step_timeout_${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'commitbus-step-timeout-'));
type Data = StoreEvent<{ id: string; hang?: boolean; late?: boolean }>;

/**
 * Never settles while `data.hang` (until `letGo`), signalling `entered`;
 * with `data.late`, writes through ctx.manager once let go.
 */
let letGo: () => void = () => {};
let entered = signal();
function signal(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
const hanging = defineModel<AtkCounter>({
  name: 'counters',
  entity: AtkCounterEntity,
  reducers: {
    STEP: async (e: Data, { get, manager }) => {
      if (e.data.hang) {
        entered.open();
        await new Promise<void>((resolve) => {
          letGo = resolve;
        });
        if (e.data.late) await manager.query(`INSERT INTO atk_counters (id, n, hits) VALUES ('late', 1, 1)`);
      }
      return { sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + 1, hits: 1 }] };
    },
  },
});

const open: { store: EventStore; dataSource: DataSource }[] = [];
afterEach(async () => {
  letGo();
  entered = signal();
  for (const { store, dataSource } of open.splice(0)) {
    await store.close();
    if (dataSource.options.type === 'postgres') await closeSchema(dataSource);
    else await dataSource.destroy();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FAST = {
  pollMs: 10,
  takeoverMs: 50,
  retryDelayMs: 60_000,
  maxRetryDelayMs: 60_000,
  stepTimeoutMs: 300,
};

async function onSqliteFile(
  name: string,
): Promise<{ store: EventStore; dataSource: DataSource; file: string }> {
  const file = join(dir, `${name}.sqlite`);
  const dataSource = await new DataSource({
    type: 'better-sqlite3',
    database: file,
    entities: [AtkCounterEntity, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
  const store = createEventStore({ dataSource, models: [hanging], logger: capturingLogger(), ...FAST });
  await store.start();
  open.push({ store, dataSource });
  return { store, dataSource, file };
}

/** What another connection sees: only what was committed. */
async function committed(file: string): Promise<{ counters: unknown[]; events: unknown[] }> {
  const other = await new DataSource({ type: 'better-sqlite3', database: file, readonly: true }).initialize();
  try {
    return {
      counters: await other.query('SELECT id, n FROM atk_counters ORDER BY id'),
      events: await other.query('SELECT v, status FROM commitbus_es_events ORDER BY v'),
    };
  } finally {
    await other.destroy();
  }
}

describe('sqlite', () => {
  it('a dispatch made while a step hangs is queued and committed; after a skip, every later event is committed too', async () => {
    const { store, file } = await onSqliteFile('race');
    const held = store.dispatch('STEP', { id: 'h', hang: true });
    held.catch(() => {});
    await entered.promise;
    // While the reducer hangs: the dispatch waits for the writer's transaction, then goes in.
    const during = await store.dispatch('STEP', { id: 'a' }, { wait: false });
    expect(during.v).toBe(2);
    await expect(held).rejects.toBeInstanceOf(EventStoreHaltedError);
    await store.skip(1, { by: 'test', reason: 'hangs' });
    await store.handledVersion(2);
    await store.dispatch('STEP', { id: 'a' });
    expect(await committed(file)).toEqual({
      counters: [{ id: 'a', n: 2 }],
      events: [
        { v: 1, status: 'skipped' },
        { v: 2, status: 'handled' },
        { v: 3, status: 'handled' },
      ],
    });
  });

  it('a callback that settles after its step timed out cannot write through ctx.manager', async () => {
    const { store, file } = await onSqliteFile('late');
    const held = store.dispatch('STEP', { id: 'h', hang: true, late: true });
    held.catch(() => {});
    await expect(held).rejects.toBeInstanceOf(EventStoreHaltedError);
    await store.skip(1, { by: 'test' });
    letGo(); // the abandoned reducer now tries its INSERT
    await store.dispatch('STEP', { id: 'a' });
    await store.dispatch('STEP', { id: 'a' });
    expect((await committed(file)).counters).toEqual([{ id: 'a', n: 2 }]);
  });
});

describe('postgres', () => {
  async function onPg(options: { poolSize?: number; writerIdleTimeoutMs?: number } = {}) {
    const dataSource = await openSchema(SCHEMA, [AtkCounterEntity]);
    if (options.poolSize !== undefined) {
      await dataSource.destroy();
      dataSource.setOptions({ extra: { max: options.poolSize } });
      await dataSource.initialize();
    }
    return dataSource;
  }

  it('a correction made while the step hangs is handled with the new data, not recorded as timed out', async () => {
    const dataSource = await onPg();
    const store = createEventStore({ dataSource, models: [hanging], logger: capturingLogger(), ...FAST });
    await store.start();
    open.push({ store, dataSource });
    const held = store.dispatch('STEP', { id: 'h', hang: true });
    held.catch(() => {});
    await entered.promise; // the writer holds v1's row
    // Waits for the writer's lock on v1's row, then commits before the writer records the timeout.
    await store.correct(1, { id: 'fixed' }, { by: 'test', reason: 'without the hang' });
    const handled = await store.handledVersion(1);
    expect(handled).toMatchObject({ v: 1, status: 'handled', data: { id: 'fixed' } });
    expect(handled.error).toBeUndefined();
    expect(await dataSource.getRepository(AtkCounterEntity).find()).toMatchObject([{ id: 'fixed', n: 1 }]);
  });

  it('on a pool of two, with the other connection held by the deadlocked deriver, the halt comes after stepTimeoutMs, not writerIdleTimeoutMs', async () => {
    const dataSource = await onPg({ poolSize: 2 });
    let outside: DataSource | undefined = dataSource;
    const noted = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      reducers: { NOTE: (e: Data) => ({ sav: [{ id: e.data.id, n: 1, hits: 1 }] }) },
      derive: async ({ event, manager }) => {
        await manager.query('SELECT 1');
        const { id, hang } = event.data as Data['data'];
        if (hang) await outside?.getRepository(AtkCounterEntity).update({ id }, { note: 'derived' });
      },
    });
    const store = createEventStore({
      dataSource,
      models: [noted],
      logger: capturingLogger(),
      ...FAST,
      writerIdleTimeoutMs: 20_000,
    });
    await store.start();
    open.push({ store, dataSource });
    await store.dispatch('NOTE', { id: 'a' });
    const started = Date.now();
    await expect(store.dispatch('NOTE', { id: 'a', hang: true })).rejects.toBeInstanceOf(
      EventStoreHaltedError,
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    outside = undefined;
  });

  it('a replay whose step hangs fails and changes nothing; the store goes on handling events', async () => {
    const dataSource = await onPg();
    let hang = false;
    const counting = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      reducers: {
        HIT: async (e: Data, { get }) => {
          if (hang) await new Promise(() => {});
          return { sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + 1, hits: 1 }] };
        },
      },
    });
    const store = createEventStore({ dataSource, models: [counting], logger: capturingLogger(), ...FAST });
    await store.start();
    open.push({ store, dataSource });
    for (let i = 0; i < 3; i++) await store.dispatch('HIT', { id: 'a' });
    hang = true;
    await expect(store.replay()).rejects.toThrow(/the replay failed at v1 .*did not settle within 300 ms/);
    hang = false;
    expect(await dataSource.getRepository(AtkCounterEntity).find()).toMatchObject([{ id: 'a', n: 3 }]);
    await expect(store.dispatch('HIT', { id: 'a' })).resolves.toMatchObject({ v: 4, status: 'handled' });
    expect(await dataSource.getRepository(AtkCounterEntity).find()).toMatchObject([{ id: 'a', n: 4 }]);
  });
});
