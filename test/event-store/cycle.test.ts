import { describe, expect, it } from 'vitest';
import { EventStoreUsageError } from '../../src/event-store/index.js';
import { defineModel, EventStoreHaltedError, type ReducerResult, type StoreEvent } from '../../src/index.js';
import {
  type Item,
  ItemEntity,
  items,
  type Pair,
  PairEntity,
  type Trace,
  TraceEntity,
} from '../fixtures/es-items.js';
import {
  AccountEntity,
  LEDGER_MODELS,
  LedgerLineEntity,
  TypeCountEntity,
} from '../fixtures/ledger-models.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';

type Step = StoreEvent<{ children?: string[] }>;

/** A model writing one trace row per event or sub-event it sees, its reducer's sub-events given by `tree`. */
function tracer(tree: Record<string, string[]>, order: string[]) {
  const reduce = async (event: Step, { repository }: { repository: { count(): Promise<number> } }) => {
    order.push(`${event.type}@v${event.v}`);
    const seq = await repository.count();
    return {
      ins: [{ id: `${event.v}:${event.type}`, v: event.v, type: event.type, seq }],
      events: (tree[event.type] ?? []).map((type) => ({ type, data: { from: event.type } })),
    };
  };
  return defineModel<Trace>({
    name: 'tracer',
    entity: TraceEntity,
    reducers: Object.fromEntries(Object.keys(tree).map((type) => [type, reduce])),
  });
}

describeOnBothDatabases('event store cycle', (bed) => {
  describe('dispatch and versions', () => {
    it('dispatch resolves with the history once handled: v, data, result (opaque keys kept), sub-events', async () => {
      const store = await bed.start({ models: [items] });
      const result = { ins: [{ id: 'a', name: 'A', qty: 1 }], note: 'kept in history' };
      const handled = await store.dispatch('ITEM.RESULT', result);
      expect(handled).toMatchObject({
        v: 1,
        type: 'ITEM.RESULT',
        status: 'handled',
        data: result,
        result: { items: result },
        events: [],
        attempts: 0,
        important: false,
        audit: [],
      });
      expect(handled.error).toBeUndefined();
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'a', name: 'A', qty: 1 }]);
      expect(await store.getVersion()).toBe(1);
      expect(await store.history(1, 1)).toEqual([handled]);
    });

    it('versions are 1..N without gaps under concurrent dispatchers, each applied once in v order', async () => {
      const store = await bed.start({ models: [items], batchSize: 7 });
      const loop = async (l: number) => {
        const versions: number[] = [];
        for (let i = 0; i < 8; i++) {
          const data = { sav: [{ id: `loop${l}`, qty: i }] };
          const event =
            i % 2 === 0
              ? await store.dispatch('ITEM.RESULT', data, { wait: false })
              : await store.dispatch('ITEM.RESULT', data);
          versions.push(event.v);
        }
        return versions;
      };
      const perLoop = await Promise.all([0, 1, 2, 3, 4].map(loop));
      for (const versions of perLoop) expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(perLoop.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));

      expect(await store.waitForQueue()).toBe(40);
      expect(await store.getVersion()).toBe(40);
      expect(await bed.versions()).toEqual({ queued: 40, handled: 40 });
      const rows = await bed.events();
      expect(rows.map((r) => r.v)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(rows.every((r) => r.status === 'handled')).toBe(true);
      // Each loop's last event (qty 7) was applied last for its row.
      expect((await bed.rows(ItemEntity)).map((r) => [r.id, r.qty])).toEqual(
        [0, 1, 2, 3, 4].map((l) => [`loop${l}`, 7]),
      );
    });

    it('{ wait: false } resolves once queued; handledVersion and waitForQueue wait for the writer', async () => {
      const store = bed.create({ models: [items] });
      expect(await store.waitForQueue()).toBe(0);
      const queued = await store.dispatch(
        'ITEM.RESULT',
        { ins: [{ id: 'q', qty: 1 }] },
        { wait: false, important: true, ts: 1_700_000_000_000 },
      );
      expect(queued).toEqual({
        v: 1,
        type: 'ITEM.RESULT',
        ts: 1_700_000_000_000,
        data: { ins: [{ id: 'q', qty: 1 }] },
      });
      expect(await bed.events()).toMatchObject([{ v: 1, status: 'queued', important: true, result: null }]);
      expect(await store.getVersion()).toBe(0);
      expect(await bed.rows(ItemEntity)).toEqual([]);

      // Nobody is the writer yet: the waits resolve once a store starts.
      const waiting = store.handledVersion(1);
      const drained = store.waitForQueue();
      await store.start();
      expect(await waiting).toMatchObject({
        v: 1,
        status: 'handled',
        ts: 1_700_000_000_000,
        important: true,
      });
      expect(await drained).toBe(1);
      expect(await store.handledVersion(1)).toMatchObject({ v: 1, status: 'handled' });
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'q', name: null, qty: 1 }]);

      await expect(store.handledVersion(0)).rejects.toBeInstanceOf(EventStoreUsageError);
      await expect(store.handledVersion(1.5)).rejects.toThrow(/handledVersion takes a version from 1 up/);
    });
  });

  describe('sub-events', () => {
    it('run depth-first with the parent v, and are stored as a tree in the parent history row', async () => {
      const order: string[] = [];
      const model = tracer({ A: ['B', 'C'], B: ['D'], C: [], D: [] }, order);
      const store = await bed.start({ models: [model] });
      const first = await store.dispatch('A', {});
      const second = await store.dispatch('C', {});

      expect(order).toEqual(['A@v1', 'B@v1', 'D@v1', 'C@v1', 'C@v2']);
      const sub = (type: string, from: string, seq: number, events: unknown[] = []) => ({
        type,
        data: { from },
        result: { tracer: { ins: [{ id: `1:${type}`, v: 1, type, seq }], events: expect.any(Array) } },
        events,
      });
      expect(first.events).toEqual([sub('B', 'A', 1, [sub('D', 'B', 2)]), sub('C', 'A', 3)]);
      expect(second.events).toEqual([]);
      expect((await bed.events())[0]?.events).toEqual(first.events);
      // Each sub-event's reducer saw the rows its parent and earlier sub-events wrote (seq counts them).
      expect((await bed.rows(TraceEntity)).map((t) => `${t.id}#${t.seq}`)).toEqual([
        '1:A#0',
        '1:B#1',
        '1:C#3',
        '1:D#2',
        '2:C#4',
      ]);
      expect(await store.getVersion()).toBe(2);
    });

    it('a sub-event sees what its parent and earlier sub-events applied (the ledger opens an account, then deposits)', async () => {
      const store = await bed.start({ models: LEDGER_MODELS });
      const deposit = await store.dispatch('ACCOUNT.DEPOSITED', { id: 'acc', amount: 5, line: 'l1' });
      expect(deposit.events.map((e) => e.type)).toEqual(['ACCOUNT.OPENED', 'ACCOUNT.DEPOSITED']);
      expect(await bed.rows(AccountEntity)).toEqual([{ id: 'acc', balance: 5, deposits: 1 }]);
      expect(await bed.rows(LedgerLineEntity)).toEqual([{ id: 'l1', account: 'acc', amount: 5, v: 1 }]);
      expect(await bed.rows(TypeCountEntity)).toEqual([
        { type: 'ACCOUNT.DEPOSITED', count: 2 },
        { type: 'ACCOUNT.OPENED', count: 1 },
      ]);
    });

    it('per model in order: returned events, then addEvent ones; then those derivers add', async () => {
      const order: string[] = [];
      const leaf = (event: StoreEvent) => {
        order.push(event.type);
        return undefined;
      };
      const first = defineModel<Item>({
        name: 'first',
        entity: ItemEntity,
        reducers: {
          TOP: (_event: StoreEvent, { addEvent }) => {
            addEvent('FIRST.ADDED', { n: 1 });
            return { events: [{ type: 'FIRST.RETURNED', data: { n: 2 } }] };
          },
          'FIRST.ADDED': leaf,
          'FIRST.RETURNED': leaf,
          'DERIVED.ADDED': leaf,
        },
        derive: ({ event, addEvent }) => {
          if (event.type === 'TOP') addEvent('DERIVED.ADDED');
        },
      });
      const second = defineModel<Pair>({
        name: 'second',
        entity: PairEntity,
        reducers: {
          TOP: (_event: StoreEvent, { addEvent }) => {
            addEvent('SECOND.ADDED');
            return undefined;
          },
          'SECOND.ADDED': leaf,
        },
      });
      const store = await bed.start({ models: [first, second] });
      const handled = await store.dispatch('TOP', {});
      const expected = ['FIRST.RETURNED', 'FIRST.ADDED', 'SECOND.ADDED', 'DERIVED.ADDED'];
      expect(order).toEqual(expected);
      expect(handled.events.map((e) => e.type)).toEqual(expected);
      expect(handled.events.map((e) => e.data)).toEqual([{ n: 2 }, { n: 1 }, null, null]);
      // What a reducer adds with addEvent is not part of its stored result.
      expect(handled.result).toEqual({ first: { events: [{ type: 'FIRST.RETURNED', data: { n: 2 } }] } });
    });

    it("transact's dispatch handles a sub-event at once and returns its result", async () => {
      const seen: unknown[] = [];
      const orders = defineModel<Item>({
        name: 'orders',
        entity: ItemEntity,
        reducers: {
          ORDER: (event: StoreEvent<{ id: string }>) => ({
            ins: [{ id: event.data.id, name: null, qty: 1 }],
            events: [
              { type: 'ITEM.RESULT', data: { sav: [{ id: event.data.id, name: 'from a sub-event' }] } },
            ],
          }),
          'ITEM.RESULT': (event: StoreEvent<ReducerResult<Item>>) => event.data,
        },
        transact: async ({ event, dispatch, get }) => {
          if (event.type !== 'ORDER') return;
          const id = (event.data as { id: string }).id;
          seen.push(await get(id));
          const record = await dispatch('ITEM.RESULT', { upd: [{ id, qty: 2 }] });
          seen.push(record, await get(id));
        },
      });
      const store = await bed.start({ models: [orders] });
      const handled = await store.dispatch('ORDER', { id: 'o' });
      expect(seen).toEqual([
        { id: 'o', name: 'from a sub-event', qty: 1 },
        {
          type: 'ITEM.RESULT',
          data: { upd: [{ id: 'o', qty: 2 }] },
          result: { orders: { upd: [{ id: 'o', qty: 2 }] } },
          events: [],
        },
        { id: 'o', name: 'from a sub-event', qty: 2 },
      ]);
      expect(handled.events.map((e) => e.data)).toEqual([
        { sav: [{ id: 'o', name: 'from a sub-event' }] },
        { upd: [{ id: 'o', qty: 2 }] },
      ]);
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'o', name: 'from a sub-event', qty: 2 }]);
    });

    it('a sub-event that keeps adding itself halts at the depth cap with a clear message, writing nothing', async () => {
      const loop = defineModel<Item>({
        name: 'loop',
        entity: ItemEntity,
        reducers: {
          LOOP: (event: StoreEvent<{ n: number }>) => ({
            sav: [{ id: `n${event.data.n}`, qty: event.data.n }],
            events: [{ type: 'LOOP', data: { n: event.data.n + 1 } }],
          }),
        },
      });
      const store = await bed.start({ models: [loop], retryDelayMs: 60_000 });
      const failing = store.dispatch('LOOP', { n: 0 });
      await expect(failing).rejects.toBeInstanceOf(EventStoreHaltedError);
      await expect(failing).rejects.toThrow(
        /sub-events nest deeper than 100: a sub-event keeps adding itself/,
      );
      const halted = await store.halted();
      expect(halted?.error).toMatchObject({ step: 'store' });
      expect(halted?.error?.path.length).toBe(101);
      expect(await bed.rows(ItemEntity)).toEqual([]);
      expect(await store.getVersion()).toBe(0);
    });
  });

  describe('state seen by each step', () => {
    it('reducers of one event all see the state before it; the next event sees it applied (ctx.get and queries)', async () => {
      const seen: string[] = [];
      const counter = defineModel<Item>({
        name: 'counter',
        entity: ItemEntity,
        reducers: {
          TICK: async (event: StoreEvent, { get, repository }) => {
            const cached = await get('c');
            const queried = await repository.findOneBy({ id: 'c' });
            seen.push(`counter v${event.v}: get ${cached?.qty ?? '-'} query ${queried?.qty ?? '-'}`);
            return { sav: [{ id: 'c', qty: (cached?.qty ?? 0) + 1 }] };
          },
        },
      });
      const watcher = defineModel<Trace>({
        name: 'watcher',
        entity: TraceEntity,
        reducers: {
          TICK: async (event: StoreEvent, { manager }) => {
            const row = await manager.getRepository(ItemEntity).findOneBy({ id: 'c' });
            seen.push(`watcher v${event.v}: query ${row?.qty ?? '-'}`);
            return { ins: [{ id: `tick${event.v}`, v: event.v, type: event.type, seq: row?.qty ?? 0 }] };
          },
        },
      });
      // Queued before the writer starts, so the four events are handled in one batch.
      const store = bed.create({ models: [counter, watcher], batchSize: 10 });
      for (let i = 0; i < 4; i++) await store.dispatch('TICK', {}, { wait: false });
      await store.start();
      await store.waitForQueue();

      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'c', name: null, qty: 4 }]);
      expect(seen.filter((s) => s.startsWith('counter'))).toEqual([
        'counter v1: get - query -',
        'counter v2: get 1 query 1',
        'counter v3: get 2 query 2',
        'counter v4: get 3 query 3',
      ]);
      expect(seen.filter((s) => s.startsWith('watcher'))).toEqual([
        'watcher v1: query -',
        'watcher v2: query 1',
        'watcher v3: query 2',
        'watcher v4: query 3',
      ]);
      expect((await bed.rows(TraceEntity)).map((t) => t.seq)).toEqual([0, 1, 2, 3]);
    });

    it('preprocessors canonicalize the data in model order; reducers and history get the canonical form', async () => {
      const preprocessed: unknown[] = [];
      const trim = defineModel<Item>({
        name: 'trim',
        entity: ItemEntity,
        preprocess: (event) => {
          preprocessed.push(['trim', event.data]);
          const data = event.data as { id: string; name: string };
          return event.type === 'NAMED'
            ? { type: event.type, data: { ...data, name: data.name.trim() } }
            : undefined;
        },
        reducers: {
          NAMED: (event: StoreEvent<{ id: string; name: string }>) => ({
            sav: [{ id: event.data.id, name: event.data.name }],
          }),
        },
      });
      const lower = defineModel<Pair>({
        name: 'lower',
        entity: PairEntity,
        preprocess: (event) => {
          preprocessed.push(['lower', event.data]);
          const data = event.data as { id: string; name: string };
          return { type: event.type, data: { ...data, name: data.name.toLowerCase() } };
        },
      });
      const store = await bed.start({ models: [trim, lower] });
      const handled = await store.dispatch('NAMED', { id: 'a', name: '  Ada LOVELACE ' });
      expect(preprocessed).toEqual([
        ['trim', { id: 'a', name: '  Ada LOVELACE ' }],
        ['lower', { id: 'a', name: 'Ada LOVELACE' }],
      ]);
      expect(handled.data).toEqual({ id: 'a', name: 'ada lovelace' });
      expect((await bed.events())[0]?.data).toEqual({ id: 'a', name: 'ada lovelace' });
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'a', name: 'ada lovelace', qty: null }]);
    });

    it('a preprocessor that changes the type to one no model knows halts the event, naming the model', async () => {
      const renaming = defineModel<Item>({
        name: 'renaming',
        entity: ItemEntity,
        preprocess: (event) => ({ type: 'OTHER', data: event.data }),
        reducers: { NAMED: () => ({ ins: [{ id: 'x', name: null, qty: null }] }) },
      });
      const store = await bed.start({ models: [renaming], retryDelayMs: 60_000 });
      const failing = store.dispatch('NAMED', {});
      await expect(failing).rejects.toThrow(
        /preprocess \(model renaming\): the preprocessor changed the type to "OTHER", which no model knows/,
      );
      expect((await store.halted())?.error).toMatchObject({ step: 'preprocess', model: 'renaming' });
      expect(await bed.rows(ItemEntity)).toEqual([]);
    });
  });
});
