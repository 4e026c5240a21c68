import { DataSource, EntitySchema } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStoreUsageError } from '../../src/event-store/index.js';
import {
  COMMITBUS_ENTITIES,
  createEventStore,
  defineModel,
  type EventStore,
  EventStoreHaltedError,
  type StoreEvent,
} from '../../src/index.js';
import { closeSchema, connectSchema, openSchema } from '../helpers/postgres.js';

// The writer's batching must not change what the tables hold: the same events
// give the same tables whatever the batch boundaries, replay gives them back,
// and an operator's action racing the writer is never lost.
const SCHEMA = `commitbus_test_es_consistency_${process.pid}`;
const opened: { ds: DataSource; stores: EventStore[] }[] = [];
afterEach(async () => {
  for (const { ds, stores } of opened.splice(0)) {
    for (const store of stores) await store.close();
    if (ds.options.type === 'postgres') await closeSchema(ds);
    else await ds.destroy();
  }
});

interface Counter {
  id: string;
  n: number;
}
const counterEntity = (name: string, n: 'integer' | 'bigint') =>
  new EntitySchema<Counter>({
    name,
    tableName: name.toLowerCase(),
    columns: { id: { type: 'varchar', length: 40, primary: true }, n: { type: n } },
  });
const counting = (entity: EntitySchema<Counter>) =>
  defineModel<Counter>({
    entity,
    reducers: {
      TICK: async (e: StoreEvent<{ id: string }>, { get }) => ({
        sav: [{ id: e.data.id, n: Number((await get(e.data.id))?.n ?? 0) + 1 }],
      }),
      // Adds to a bigint column the way a careless reducer does: a string from PostgreSQL plus 1.
      CONCAT: async (e: StoreEvent<{ id: string }>, { get }) => ({
        sav: [{ id: e.data.id, n: `${(await get(e.data.id))?.n ?? 0}1` as unknown as number }],
      }),
    },
  });

async function postgres(name: string, entities: EntitySchema[]): Promise<DataSource> {
  const ds = await openSchema(`${SCHEMA}_${name}`, entities);
  opened.push({ ds, stores: [] });
  return ds;
}

function track(ds: DataSource, store: EventStore): EventStore {
  opened.find((o) => o.ds === ds)?.stores.push(store);
  return store;
}

describe('the same events give the same tables, whatever the batches', () => {
  it('a bigint column read back as a string: one batch, one event at a time and a replay agree', async () => {
    const Big = counterEntity('EsBig', 'bigint');
    const results: string[] = [];
    for (const batchSize of [1, 200]) {
      const ds = await postgres(`big_${batchSize}`, [Big]);
      const store = track(ds, createEventStore({ dataSource: ds, models: [counting(Big)], batchSize }));
      for (let i = 0; i < 3; i++) await store.dispatch('CONCAT', { id: 'x' }, { wait: false });
      await store.start();
      await store.waitForQueue();
      await store.dispatch('CONCAT', { id: 'x' });
      const live = String((await ds.getRepository(Big).findOneByOrFail({ id: 'x' })).n);
      await store.replay();
      const replayed = String((await ds.getRepository(Big).findOneByOrFail({ id: 'x' })).n);
      expect(replayed).toBe(live);
      results.push(live);
    }
    // '0' + '1' read back as 1, then '11', '111', '1111': the same at either batch size.
    expect(results).toEqual(['1111', '1111']);
  });

  it('an order deleted (its lines cascading away) and made again within one batch: lines as one event at a time', async () => {
    interface Order {
      id: string;
    }
    interface Line {
      id: string;
      orderId: string;
      qty: number;
    }
    const O = new EntitySchema<Order>({
      name: 'EsOrder',
      tableName: 'es_orders',
      columns: { id: { type: 'varchar', length: 40, primary: true } },
    });
    const L = new EntitySchema<Line>({
      name: 'EsLine',
      tableName: 'es_lines',
      columns: {
        id: { type: 'varchar', length: 40, primary: true },
        orderId: { type: 'varchar', length: 40 },
        qty: { type: 'integer' },
      },
    });
    const orders = defineModel<Order>({
      entity: O,
      reducers: {
        'ORDER.CREATE': (e: StoreEvent<{ id: string }>) => ({ ins: [{ id: e.data.id }] }),
        'ORDER.DELETE': (e: StoreEvent<{ id: string }>) => ({ rm: [e.data.id] }),
      },
    });
    const lines = defineModel<Line>({
      entity: L,
      reducers: {
        'LINE.ADD': async (e: StoreEvent<{ id: string; order: string }>, { get }) => ({
          sav: [{ id: e.data.id, orderId: e.data.order, qty: ((await get(e.data.id))?.qty ?? 0) + 1 }],
        }),
      },
    });
    const script: [string, unknown][] = [
      ['ORDER.CREATE', { id: 'o1' }],
      ['LINE.ADD', { id: 'l1', order: 'o1' }],
      ['ORDER.DELETE', { id: 'o1' }],
      ['ORDER.CREATE', { id: 'o1' }],
      ['LINE.ADD', { id: 'l1', order: 'o1' }],
    ];
    const tables: Line[][] = [];
    for (const batchSize of [1, 200]) {
      const ds = await postgres(`cascade_${batchSize}`, [O, L]);
      await ds.query(
        `ALTER TABLE ${ds.getMetadata(L).tablePath} ADD CONSTRAINT es_lines_order FOREIGN KEY ("orderId") REFERENCES ${ds.getMetadata(O).tablePath}(id) ON DELETE CASCADE`,
      );
      const store = track(ds, createEventStore({ dataSource: ds, models: [orders, lines], batchSize }));
      for (const [type, data] of script) await store.dispatch(type, data, { wait: false });
      await store.start();
      await store.waitForQueue();
      tables.push(await ds.getRepository(L).find());
    }
    expect(tables).toEqual([[{ id: 'l1', orderId: 'o1', qty: 1 }], [{ id: 'l1', orderId: 'o1', qty: 1 }]]);
  });
});

describe('operator actions racing the writer', () => {
  it('a correction committed while the writer reduces the old data waits for it, and is refused once the event is handled', async () => {
    const C = counterEntity('EsRace', 'integer');
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = defineModel<Counter>({
      entity: C,
      reducers: {
        ADD: async (e: StoreEvent<{ id: string; n: number; block?: boolean }>, { get }) => {
          if (e.data.block) {
            entered();
            await held;
          }
          return { sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + e.data.n }] };
        },
      },
    });
    const ds = await postgres('race', [C]);
    const other = await connectSchema(`${SCHEMA}_race`, { entities: [C, ...COMMITBUS_ENTITIES] });
    const writer = track(ds, createEventStore({ dataSource: ds, models: [model] }));
    const operator = createEventStore({ dataSource: other, models: [model] });
    try {
      await writer.start();
      const { v } = await writer.dispatch('ADD', { id: 'x', n: 1, block: true }, { wait: false });
      await inside;
      const correcting = operator.correct(v, { id: 'x', n: 100 }, { by: 'ops' }).catch((e: unknown) => e);
      release();
      const outcome = await correcting;
      await writer.waitForQueue();
      const [row] = await writer.history(v, v);
      expect(outcome).toBeInstanceOf(EventStoreUsageError);
      expect((outcome as Error).message).toMatch(/was handled already/);
      expect(row).toMatchObject({ status: 'handled', data: { id: 'x', n: 1, block: true }, audit: [] });
      expect(await ds.getRepository(C).findOneBy({ id: 'x' })).toEqual({ id: 'x', n: 1 });
    } finally {
      await operator.close();
      await other.destroy();
    }
  });
});

describe('a failure that goes away', () => {
  it('rejects only the dispatch of the failed event (it stays queued and is applied); the next dispatch resolves', async () => {
    const C = counterEntity('EsFlaky', 'integer');
    // Fails until the test has seen the halt: in one batch or two, with or without the redo.
    let failing = true;
    const model = defineModel<Counter>({
      entity: C,
      reducers: {
        TICK: async (e: StoreEvent<{ id: string; flaky?: boolean }>, { get }) => {
          if (e.data.flaky === true && failing) throw new Error('deadlock detected');
          return { sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + 1 }] };
        },
      },
    });
    const ds = await postgres('flaky', [C]);
    const store = track(ds, createEventStore({ dataSource: ds, models: [model], retryDelayMs: 20 }));
    await store.start();
    const first = store.dispatch('TICK', { id: 'x', flaky: true }).catch((e: unknown) => e);
    const second = store.dispatch('TICK', { id: 'x' }).catch((e: unknown) => e);
    const failed = await first;
    failing = false;
    expect(failed).toBeInstanceOf(EventStoreHaltedError);
    expect((failed as Error).message).toMatch(/stays queued .* do not dispatch it again/);
    expect(await second).toMatchObject({ v: 2, status: 'handled' });
    const history = await store.history(1, 2);
    expect(history.map((e) => e.status)).toEqual(['handled', 'handled']);
    expect(history[0]?.attempts).toBeGreaterThanOrEqual(1);
    expect(await ds.getRepository(C).findOneBy({ id: 'x' })).toEqual({ id: 'x', n: 2 });
  });
});

describe('what a waiting dispatcher gets', () => {
  it("the history its own writer handled, operator's audit trail included", async () => {
    const C = counterEntity('EsAudited', 'integer');
    let failing = true;
    const model = defineModel<Counter>({
      entity: C,
      reducers: {
        TICK: (e: StoreEvent<{ id: string }>) => {
          if (failing) throw new Error('not yet');
          return { sav: [{ id: e.data.id, n: 1 }] };
        },
      },
    });
    const ds = await postgres('audited', [C]);
    const store = track(
      ds,
      createEventStore({ dataSource: ds, models: [model], retryDelayMs: 60_000, maxRetryDelayMs: 60_000 }),
    );
    await store.start();
    await expect(store.dispatch('TICK', { id: 'x' })).rejects.toBeInstanceOf(EventStoreHaltedError);
    failing = false;
    await store.retry({ by: 'ada', reason: 'fixed' });
    // Asked after the retry: a wait opened on the halted event rejects as dispatch does (if the watch looks first).
    expect(await store.handledVersion(1)).toMatchObject({
      v: 1,
      status: 'handled',
      attempts: 0,
      audit: [{ action: 'retry', by: 'ada', reason: 'fixed' }],
    });
  });
});

describe('what the cycle may not do', () => {
  it('a transact callback that writes halts with a message saying where the write belongs, and writes nothing', async () => {
    const C = counterEntity('EsTransact', 'integer');
    const model = defineModel<Counter>({
      entity: C,
      types: ['MARK'],
      transact: async ({ event, repository }) => {
        if (event.type === 'MARK') await repository.insert({ id: 'a', n: 1 });
      },
    });
    const ds = await postgres('transact', [C]);
    const store = track(ds, createEventStore({ dataSource: ds, models: [model] }));
    await store.start();
    const error = await store.dispatch('MARK', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreHaltedError);
    expect((error as EventStoreHaltedError).event.error).toMatchObject({
      step: 'transact',
      name: 'EventStoreUsageError',
      message: expect.stringMatching(/a transact callback wrote to the database.*reducers or derivers/),
    });
    expect(await ds.getRepository(C).find()).toEqual([]);
  });

  it("on SQLite, a deriver calling the store's own reads halts with a clear error instead of waiting for itself", async () => {
    const C = counterEntity('EsNested', 'integer');
    let store: EventStore | undefined;
    const model = defineModel<Counter>({
      entity: C,
      reducers: { TICK: () => ({ sav: [{ id: 'x', n: 1 }] }) },
      derive: async () => {
        await store?.getVersion();
      },
    });
    const ds = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [C, ...COMMITBUS_ENTITIES],
      synchronize: true,
    }).initialize();
    opened.push({ ds, stores: [] });
    store = track(ds, createEventStore({ dataSource: ds, models: [model] }));
    await store.start();
    const error = await store.dispatch('TICK', {}).catch((e: unknown) => e);
    expect((error as EventStoreHaltedError).event.error).toMatchObject({
      step: 'derive',
      name: 'EventStoreUsageError',
      message: expect.stringMatching(/read through ctx\.manager/),
    });
  });
});

describe('replay after a model was added', () => {
  it('an event ignored as unknown is replayed once a model knows its type', async () => {
    const C = counterEntity('EsLate', 'integer');
    const ds = await postgres('late', [C]);
    const before = track(
      ds,
      createEventStore({ dataSource: ds, models: [], unknownTypes: 'record', dispatchUnknownTypes: true }),
    );
    await before.start();
    await before.dispatch('TICK', { id: 'x' }, { wait: false });
    await before.waitForQueue();
    expect((await before.history(1, 1))[0]?.status).toBe('ignored');
    await before.close();
    const after = track(ds, createEventStore({ dataSource: ds, models: [counting(C)] }));
    const report = await after.replay();
    expect(report).toMatchObject({ events: 1, version: 1 });
    expect(await ds.getRepository(C).find()).toEqual([{ id: 'x', n: 1 }]);
  });
});
