import { describe, expect, it } from 'vitest';
import {
  EventStoreUsageError,
  InvalidStoreEventError,
  UnknownStoreEventTypeError,
} from '../../src/event-store/index.js';
import {
  defineModel,
  EventSkippedError,
  EventStoreHaltedError,
  type ReducerResult,
} from '../../src/index.js';
import { type Item, ItemEntity, items, type Trace, TraceEntity } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';

const cycle: Record<string, unknown> = { a: 1 };
cycle.self = cycle;

describeOnBothDatabases('event store dispatch', (bed) => {
  describe('bad input is refused at dispatch, and nothing is queued', () => {
    it.each([
      ['an empty type', '', {}, /an event type must be a string of 1 to 255 characters, got an empty string/],
      ['a type of 256 characters', 'T'.repeat(256), {}, /got a string of 256 characters/],
      ['a type that is not a string', 42 as unknown as string, {}, /got number/],
      ['NaN', 'ITEM.RESULT', { qty: Number.NaN }, /field "qty" is NaN \(JSON would store null\)/],
      ['Infinity', 'ITEM.RESULT', { qty: Number.POSITIVE_INFINITY }, /field "qty" is Infinity/],
      ['-Infinity in an array', 'ITEM.RESULT', { list: [1, Number.NEGATIVE_INFINITY] }, /is -Infinity/],
      ['a BigInt', 'ITEM.RESULT', { qty: 10n }, /cannot be stored as JSON: .*BigInt/],
      ['a cycle', 'ITEM.RESULT', cycle, /cannot be stored as JSON: .*circular/i],
      ['a function', 'ITEM.RESULT', { f: () => 1 }, /field "f" is a function/],
      ['a function as the data', 'ITEM.RESULT', () => 1, /the data is a function/],
      ['a symbol', 'ITEM.RESULT', { s: Symbol('s') }, /field "s" is a symbol/],
      ['undefined in an array', 'ITEM.RESULT', { list: [undefined] }, /of an array is undefined/],
      [
        'data over maxEventBytes',
        'ITEM.RESULT',
        { text: 'x'.repeat(100) },
        /is 111 bytes, over the limit of 100 \(maxEventBytes\)/,
      ],
      [
        'data over maxEventBytes in UTF-8',
        'ITEM.RESULT',
        { text: '€'.repeat(30) },
        /is 101 bytes, over the limit of 100/,
      ],
    ])('%s', async (_case, type, data, message) => {
      const store = await bed.start({ models: [items], maxEventBytes: 100 });
      const refused = store.dispatch(type, data);
      await expect(refused).rejects.toBeInstanceOf(InvalidStoreEventError);
      await expect(refused).rejects.toThrow(message);
      await expect(refused).rejects.toThrow(/nothing was queued$/);
      await expect(store.dispatch(type, data, { wait: false })).rejects.toBeInstanceOf(
        InvalidStoreEventError,
      );
      expect(await bed.events()).toEqual([]);
      // The version counter did not move: the next event is v1.
      expect((await store.dispatch('ITEM.RESULT', { ins: [{ id: 'ok', name: null, qty: null }] })).v).toBe(1);
      expect(await bed.versions()).toEqual({ queued: 1, handled: 1 });
    });

    it('a ts that is not epoch milliseconds is refused', async () => {
      const store = await bed.start({ models: [items] });
      await expect(store.dispatch('ITEM.RESULT', {}, { ts: -1 })).rejects.toThrow(
        /ts must be epoch milliseconds, got number/,
      );
      expect(await bed.events()).toEqual([]);
    });

    it('store.dispatch from inside a reducer halts that event with an EventStoreUsageError', async () => {
      const store = await bed.start({
        retryDelayMs: 60_000,
        models: [
          items,
          defineModel<Trace>({
            name: 'eager',
            entity: TraceEntity,
            reducers: {
              EAGER: async () => {
                await store.dispatch('ITEM.RESULT', {});
                return undefined;
              },
            },
          }),
        ],
      });
      await expect(store.dispatch('EAGER', {})).rejects.toThrow(
        /store\.dispatch\("ITEM\.RESULT"\) was called while an event is handled: it would wait for itself/,
      );
      expect((await store.halted())?.error).toMatchObject({
        step: 'reduce',
        model: 'eager',
        name: 'EventStoreUsageError',
      });
      expect((await bed.events()).map((e) => e.type)).toEqual(['EAGER']);
    });
  });

  describe('unknown event types', () => {
    it('dispatch refuses a type no model knows, listing the known ones; nothing is queued', async () => {
      const store = await bed.start({ models: [items] });
      const refused = store.dispatch('ITEM.RESULTS', {});
      await expect(refused).rejects.toBeInstanceOf(UnknownStoreEventTypeError);
      await expect(refused).rejects.toThrow(
        'no model of the event store knows the event type "ITEM.RESULTS" (known: ITEM.RESULT)',
      );
      expect(await bed.events()).toEqual([]);
      expect(await bed.versions()).toEqual({ queued: 0, handled: 0 });
    });

    it("queued by a store with dispatchUnknownTypes, it halts a writer with unknownTypes 'halt' until skipped", async () => {
      const writer = await bed.start({ models: [items], unknownTypes: 'halt', retryDelayMs: 60_000 });
      const dispatcher = bed.create({ models: [items], dispatchUnknownTypes: true });
      const unknown = dispatcher.dispatch('GADGET.MADE', { id: 'g' });
      await expect(unknown).rejects.toBeInstanceOf(EventStoreHaltedError);
      await expect(unknown).rejects.toThrow(
        /failed in type: no model of the event store knows the event type "GADGET\.MADE"/,
      );
      expect((await writer.halted())?.error).toMatchObject({
        step: 'type',
        name: 'UnknownStoreEventTypeError',
      });

      const next = await dispatcher.dispatch(
        'ITEM.RESULT',
        { ins: [{ id: 'after', name: null, qty: null }] },
        { wait: false },
      );
      // Its own event did not fail: waiting for it runs into the time limit, not the halt.
      await expect(dispatcher.handledVersion(next.v, { timeoutMs: 100 })).rejects.toMatchObject({
        name: 'EventStoreTimeoutError',
      });
      await expect(dispatcher.waitForQueue()).rejects.toBeInstanceOf(EventStoreHaltedError);
      expect(await bed.rows(ItemEntity)).toEqual([]);

      await writer.skip(1, { by: 'ops', reason: 'GADGET is not deployed yet' });
      expect((await dispatcher.handledVersion(next.v)).status).toBe('handled');
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'after', name: null, qty: null }]);
      expect((await bed.events()).map((e) => e.status)).toEqual(['skipped', 'handled']);
    });

    it("with unknownTypes 'record' the writer records it as ignored and goes on", async () => {
      const writer = await bed.start({ models: [items], unknownTypes: 'record' });
      const dispatcher = bed.create({ models: [items], dispatchUnknownTypes: true });
      const unknown = await dispatcher.dispatch('GADGET.MADE', { id: 'g' }, { wait: false });
      const after = await dispatcher.dispatch('ITEM.RESULT', {
        ins: [{ id: 'after', name: null, qty: null }],
      });
      expect(after).toMatchObject({ v: 2, status: 'handled' });
      expect(await writer.history(1, 1)).toMatchObject([
        {
          v: 1,
          type: 'GADGET.MADE',
          status: 'ignored',
          data: { id: 'g' },
          result: {},
          events: [],
          attempts: 0,
        },
      ]);
      // It changed nothing: waiting for it says so, as for a skipped event.
      await expect(dispatcher.handledVersion(unknown.v)).rejects.toBeInstanceOf(EventSkippedError);
      await expect(dispatcher.handledVersion(unknown.v)).rejects.toThrow(
        'event v1 (GADGET.MADE) was ignored: no model knows its type; it changed no table',
      );
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'after', name: null, qty: null }]);
    });

    it("an unknown sub-event type halts under 'halt', with the path from the dispatched event", async () => {
      const store = await bed.start({ models: [items], retryDelayMs: 60_000 });
      const parent: ReducerResult<Item> = {
        ins: [{ id: 'p', name: null, qty: null }],
        events: [{ type: 'GADGET.MADE', data: {} }],
      };
      await expect(store.dispatch('ITEM.RESULT', parent)).rejects.toThrow(
        /failed in type of sub-event ITEM\.RESULT > GADGET\.MADE: no model of the event store knows/,
      );
      expect(await bed.rows(ItemEntity)).toEqual([]);
    });

    it("an unknown sub-event type is recorded in the parent's tree under 'record'", async () => {
      const store = await bed.start({ models: [items], unknownTypes: 'record' });
      const handled = await store.dispatch('ITEM.RESULT', {
        ins: [{ id: 'p', name: null, qty: null }],
        events: [{ type: 'GADGET.MADE', data: { n: 1 } }],
      } satisfies ReducerResult<Item>);
      expect(handled.status).toBe('handled');
      expect(handled.events).toEqual([{ type: 'GADGET.MADE', data: { n: 1 }, result: {}, events: [] }]);
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'p', name: null, qty: null }]);
    });
  });

  it('20 loops dispatching concurrently queue in groups of 20 (one transaction each), in call order', async () => {
    const store = bed.create({ models: [items] }); // not started: rows stay as the dispatch wrote them
    const calls: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, loop) => {
        for (let i = 0; i < 10; i++) {
          calls.push(loop);
          const { v } = await store.dispatch('ITEM.RESULT', { loop }, { wait: false });
          expect(v).toBeGreaterThan(0);
        }
      }),
    );
    const events = await bed.events();
    expect(events.map((e) => e.v)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(events.map((e) => (e.data as { loop: number }).loop)).toEqual(calls);
    if (bed.dialect === 'postgres') {
      // Each group is one transaction: its rows share one xmin. The loops resume together after each
      // commit, so 10 groups; one alone and the rest after it would make 20.
      const [row] = (await bed.dataSource.query(
        `SELECT COUNT(DISTINCT xmin::text)::int AS groups FROM ${bed.schemaName}.commitbus_es_events`,
      )) as { groups: number }[];
      expect(row?.groups).toBe(10);
    }
  });

  it('a closed store refuses to dispatch', async () => {
    const store = await bed.start({ models: [items] });
    await store.close();
    await expect(store.dispatch('ITEM.RESULT', {})).rejects.toBeInstanceOf(EventStoreUsageError);
    expect(await bed.events()).toEqual([]);
  });
});
