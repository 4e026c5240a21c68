import { describe, expect, it } from 'vitest';
import { EventStoreUsageError, InvalidStoreEventError } from '../../src/event-store/index.js';
import {
  DispatchOp,
  defineModel,
  EventStoreHaltedError,
  type HistoryEvent,
  NoBusError,
  type ReducerResult,
  SendEventOp,
  type StoreEvent,
  UnitOfWorkManager,
} from '../../src/index.js';
import { type Item, ItemEntity, ItemNotice, items, PairEntity } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';
import { Recorder } from '../helpers/recorder.js';
import { waitFor } from '../helpers/wait-for.js';

const item = (id: string) => ({ ins: [{ id, name: null, qty: null }] });

/**
 * Items whose deriver sends an `ITEM.NOTICE` on the bus per inserted row;
 * an `ITEM.RESULT` carrying `{ fail: true }` fails after its reducer sent one.
 */
const noticing = defineModel<Item>({
  name: 'noticing',
  entity: ItemEntity,
  reducers: {
    'ITEM.RESULT': (event: StoreEvent<ReducerResult<Item> & { fail?: boolean }>, { uow }) => {
      if (event.data.fail === true) {
        uow.register(new SendEventOp(ItemNotice.create({ item: 'from-the-reducer', v: event.v })));
        // An existing key: the apply step fails after the reducer registered its bus event.
        return { ins: [{ id: 'taken', name: null, qty: null }] };
      }
      return event.data;
    },
  },
  derive: ({ event, own, uow, replaying }) => {
    if (replaying) return;
    for (const row of own?.ins ?? [])
      uow.register(new SendEventOp(ItemNotice.create({ item: row.id, v: event.v })));
  },
});

describeOnBothDatabases('event store bus', (bed) => {
  describe('DispatchOp in a unit of work', () => {
    it('queues with the unit of work commit, in order; queued() and handled() resolve after it', async () => {
      const { bus } = await bed.bus([ItemNotice]);
      const store = await bed.start({ models: [items] });
      const ops = await bed.uows(bus).run(async (uow) => {
        await uow.manager.insert(PairEntity, { a: 'service', b: 'row', value: 1 });
        const first = new DispatchOp(store, 'ITEM.RESULT', item('x'));
        const second = new DispatchOp(
          store,
          'ITEM.RESULT',
          { upd: [{ id: 'x', qty: 2 }] },
          { important: true },
        );
        uow.register(first);
        uow.register(second);
        return [first, second];
      });
      expect(await ops[0]?.queued()).toEqual({
        v: 1,
        type: 'ITEM.RESULT',
        ts: expect.any(Number),
        data: item('x'),
      });
      expect((await ops[1]?.handled())?.v).toBe(2);
      expect(await ops[0]?.handled()).toMatchObject({ v: 1, status: 'handled', important: false });
      expect((await bed.events()).map((e) => [e.v, e.status, e.important])).toEqual([
        [1, 'handled', false],
        [2, 'handled', true],
      ]);
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'x', name: null, qty: 2 }]);
      expect(await bed.rows(PairEntity)).toEqual([{ a: 'service', b: 'row', value: 1 }]);
    });

    it('works without a bus: a UnitOfWorkManager made with a dataSource only queues it; a SendEventOp there throws NoBusError', async () => {
      const store = await bed.start({ models: [items] });
      const uows = new UnitOfWorkManager({ dataSource: bed.dataSource });
      const op = await uows.run(async (uow) => {
        await uow.manager.insert(PairEntity, { a: 'no', b: 'bus', value: 1 });
        const dispatch = new DispatchOp(store, 'ITEM.RESULT', item('alone'));
        uow.register(dispatch);
        expect(() => uow.register(new SendEventOp(ItemNotice.create({ item: 'x', v: 0 })))).toThrow(
          NoBusError,
        );
        return dispatch;
      });
      expect(await op.handled()).toMatchObject({ v: 1, status: 'handled' });
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'alone', name: null, qty: null }]);
      expect(await bed.rows(PairEntity)).toEqual([{ a: 'no', b: 'bus', value: 1 }]);
    });

    it('queues nothing when the unit of work rolls back, before or after the op queued its event; no version is lost', async () => {
      const { bus } = await bed.bus([ItemNotice]);
      const store = await bed.start({ models: [items] });
      const uows = bed.uows(bus);

      let early: DispatchOp | undefined;
      const failing = uows.run(async (uow) => {
        early = new DispatchOp(store, 'ITEM.RESULT', item('early'));
        uow.register(early);
        throw new Error('the service failed');
      });
      await expect(failing).rejects.toThrow('the service failed');
      await expect(early?.queued()).rejects.toThrow(
        'the unit of work rolled back: "ITEM.RESULT" was not queued',
      );

      // Here the op has taken v1 in the transaction when a later hook fails it.
      let late: DispatchOp | undefined;
      const failingLate = uows.run(async (uow) => {
        await uow.manager.insert(PairEntity, { a: 'service', b: 'row', value: 1 });
        late = new DispatchOp(store, 'ITEM.RESULT', item('late'));
        uow.register(late);
        uow.register({
          onBeforeCommit: () => {
            throw new Error('a later check failed');
          },
        });
      });
      await expect(failingLate).rejects.toThrow('a later check failed');
      await expect(late?.handled()).rejects.toBeInstanceOf(EventStoreUsageError);

      expect(await bed.events()).toEqual([]);
      expect(await bed.versions()).toEqual({ queued: 0, handled: 0 });
      expect(await bed.rows(PairEntity)).toEqual([]);
      expect((await store.dispatch('ITEM.RESULT', item('next'))).v).toBe(1);
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'next', name: null, qty: null }]);
    });

    it('refuses bad events at registration, and store.dispatch inside the unit of work', async () => {
      const { bus } = await bed.bus([ItemNotice]);
      const store = await bed.start({ models: [items] });
      const seen: unknown[] = [];
      await bed.uows(bus).run(async (uow) => {
        await uow.manager.insert(PairEntity, { a: 'service', b: 'row', value: 1 });
        seen.push(await store.dispatch('ITEM.RESULT', item('inside')).catch((e: unknown) => e));
        seen.push(
          await store.dispatch('ITEM.RESULT', item('inside'), { wait: false }).catch((e: unknown) => e),
        );
        try {
          uow.register(new DispatchOp(store, 'ITEM.RESULT', { qty: Number.NaN }));
        } catch (error) {
          seen.push(error);
        }
      });
      expect(seen[0]).toBeInstanceOf(EventStoreUsageError);
      expect(String(seen[0])).toMatch(
        /store\.dispatch\("ITEM\.RESULT"\) was called inside a unit of work, outside its transaction: register new DispatchOp/,
      );
      expect(seen[1]).toBeInstanceOf(EventStoreUsageError);
      expect(seen[2]).toBeInstanceOf(InvalidStoreEventError);
      expect(await bed.events()).toEqual([]);
      expect(await bed.rows(PairEntity)).toHaveLength(1);
    });
  });

  describe('listeners', () => {
    it('are called after commit with the history, never for a failed event; one failing does not stop the others', async () => {
      const calls: string[] = [];
      const visible: boolean[] = [];
      const store = bed.create({ models: [items], batchSize: 10, retryDelayMs: 60_000 });
      store.addListener(async (event: HistoryEvent) => {
        calls.push(`first v${event.v} ${event.status}`);
        // Committed: another connection (between transactions on SQLite) sees the event handled.
        const [row] = (await bed.events()).filter((r) => r.v === event.v);
        visible.push(row?.status === 'handled');
        throw new Error('a listener failed');
      });
      const remove = store.addListener(() => {
        calls.push('removed');
      });
      remove();
      store.addListener((event) => {
        calls.push(`second v${event.v} ${JSON.stringify(event.result)}`);
      });
      await store.dispatch('ITEM.RESULT', item('a'), { wait: false });
      const bad = await store.dispatch('ITEM.RESULT', item('a'), { wait: false });
      await store.start();
      await expect(store.handledVersion(bad.v)).rejects.toBeInstanceOf(EventStoreHaltedError);
      await store.skip(bad.v);
      await store.dispatch('ITEM.RESULT', item('b'));
      // dispatch resolves once handled; the listeners run right after, in the writer's loop.
      await waitFor('the listeners of v3', () => calls.length === 4);

      expect(calls).toEqual([
        'first v1 handled',
        `second v1 {"items":${JSON.stringify(item('a'))}}`,
        'first v3 handled',
        `second v3 {"items":${JSON.stringify(item('b'))}}`,
      ]);
      expect(visible).toEqual([true, true]);
      expect(bed.logs.filter((l) => l.message.startsWith('event store: a listener failed'))).toHaveLength(2);
      expect((await bed.events()).map((e) => e.status)).toEqual(['handled', 'skipped', 'handled']);
    });
  });

  describe('bus events from the cycle', () => {
    it('a deriver sending through ctx.uow publishes after commit, and a handler runs', async () => {
      const rec = new Recorder();
      const seenByHandler: { notice: string; rows: string[] }[] = [];
      const { bus, published } = await bed.bus([ItemNotice], {
        'ITEM.NOTICE': [
          rec.handler<ItemNotice>('notice', async (notice) => {
            const rows = await bed.rows(ItemEntity);
            seenByHandler.push({ notice: notice.item, rows: rows.map((r) => r.id) });
          }),
        ],
      });
      const store = await bed.start({ models: [noticing], bus });
      await store.dispatch('ITEM.RESULT', item('a'));
      await store.dispatch('ITEM.RESULT', {
        ins: [
          { id: 'b', name: null, qty: null },
          { id: 'c', name: null, qty: null },
        ],
      });
      await waitFor('three notices handled', () => seenByHandler.length === 3);
      expect(rec.count('notice')).toBe(3);
      expect(published.map((e) => (e as ItemNotice).item)).toEqual(['a', 'b', 'c']);
      // Each handler ran after its event's commit: it saw the row.
      expect(seenByHandler.map((s) => s.notice).sort()).toEqual(['a', 'b', 'c']);
      for (const { notice, rows } of seenByHandler) expect(rows).toContain(notice);
    });

    it('never publishes for a failed event, even when an earlier event of its batch did publish', async () => {
      const { bus, published } = await bed.bus([ItemNotice]);
      const store = bed.create({ models: [noticing], bus, batchSize: 10, retryDelayMs: 60_000 });
      await store.dispatch('ITEM.RESULT', item('taken'), { wait: false });
      const failing = await store.dispatch('ITEM.RESULT', { fail: true }, { wait: false });
      await store.start();
      await expect(store.handledVersion(failing.v)).rejects.toBeInstanceOf(EventStoreHaltedError);
      await waitFor('the first notice published', () => published.length >= 1);
      await store.skip(failing.v);
      await store.dispatch('ITEM.RESULT', item('after'));
      await waitFor('the notice of v3 published', () => published.length >= 2);

      expect(published.map((e) => `${(e as ItemNotice).item}@v${(e as ItemNotice).v}`)).toEqual([
        'taken@v1',
        'after@v3',
      ]);
      const outbox = await bed.read((manager) => manager.getRepository('CommitbusOutboxRecord').find());
      expect(JSON.stringify(outbox)).not.toContain('from-the-reducer');
    });

    it('a store without a bus halts an event whose cycle uses ctx.uow, saying so', async () => {
      const store = await bed.start({ models: [noticing], retryDelayMs: 60_000 });
      await expect(store.dispatch('ITEM.RESULT', item('a'))).rejects.toThrow(
        /this event store has no bus: pass createEventStore\(\{ bus \}\) to send bus events from the cycle/,
      );
      expect(await bed.rows(ItemEntity)).toEqual([]);
    });
  });
});
