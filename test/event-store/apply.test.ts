import { describe, expect, it } from 'vitest';
import {
  defineModel,
  type EventStore,
  EventStoreHaltedError,
  type ReducerResult,
  type StoreEvent,
} from '../../src/index.js';
import {
  type Item,
  ItemEntity,
  items,
  PairEntity,
  pairs,
  type Trace,
  TraceEntity,
} from '../fixtures/es-items.js';
import { type LedgerLine, LedgerLineEntity } from '../fixtures/ledger-models.js';
import { describeOnBothDatabases, type StoreBed } from '../helpers/event-store-bed.js';

/** The items table after these results, each dispatched as one `ITEM.RESULT` event. */
async function applyAll(bed: StoreBed, store: EventStore, results: object[], batched: boolean) {
  for (const result of results) {
    if (batched) await store.dispatch('ITEM.RESULT', result, { wait: false });
    else await store.dispatch('ITEM.RESULT', result);
  }
  if (batched) await store.start();
  await store.waitForQueue();
  return bed.rows(ItemEntity);
}

/** Dispatches `type` expecting it to halt the store; returns its rejection and the halted row's error, then skips it. */
async function halts(store: EventStore, type: string, data: unknown) {
  const rejection = await store.dispatch(type, data).then(
    () => undefined,
    (error: unknown) => error,
  );
  const halted = await store.halted();
  if (halted !== undefined) await store.skip(halted.v, { by: 'test' });
  return { rejection, error: halted?.error };
}

/** What the tests' `RAW` reducer returns for `{ kind }`: values JSON cannot carry as event data. */
const RAW: Record<string, () => unknown> = {
  string: () => 'done',
  array: () => [{ id: 'a' }],
  date: () => new Date(0),
  number: () => 42,
};

const raw = defineModel<Trace>({
  name: 'raw',
  entity: TraceEntity,
  reducers: { RAW: (event: StoreEvent<{ kind: string }>) => RAW[event.data.kind]?.() as never },
});

describeOnBothDatabases('event store apply', (bed) => {
  describe('ins, upd, sav, rm and set', () => {
    const results = [
      {
        ins: [
          { id: 'a', name: 'A', qty: 1 },
          { id: 'b', name: 'B', qty: 2 },
          { id: 'd', name: 'D', qty: 4 },
        ],
      },
      // sav merges into a row (other columns kept) or inserts one.
      {
        sav: [
          { id: 'a', qty: 10 },
          { id: 'c', name: 'C' },
        ],
      },
      // set replaces the whole row (columns left out become NULL), or inserts it.
      {
        set: [
          { id: 'b', qty: 3 },
          { id: 'e', name: 'E' },
        ],
      },
      // upd merges into an existing row; a null clears a column.
      { upd: [{ id: 'c', qty: 5, name: null }] },
      // rm deletes by key; a missing row is no error.
      { rm: ['d', 'missing'] },
      // In one result: rm first, then set, ins, upd, sav.
      {
        rm: ['e'],
        ins: [{ id: 'e', name: 'E2', qty: null }],
        upd: [{ id: 'e', qty: 7 }],
        sav: [{ id: 'e', name: 'E3' }],
      },
    ];
    const expected = [
      { id: 'a', name: 'A', qty: 10 },
      { id: 'b', name: null, qty: 3 },
      { id: 'c', name: null, qty: 5 },
      { id: 'e', name: 'E3', qty: 7 },
    ];

    it('apply as documented, one event per transaction', async () => {
      const store = await bed.start({ models: [items] });
      expect(await applyAll(bed, store, results, false)).toEqual(expected);
    });

    it('apply the same way when the events share one batch (writes cached, flushed at the end)', async () => {
      const store = bed.create({ models: [items], batchSize: 50 });
      expect(await applyAll(bed, store, results, true)).toEqual(expected);
      expect((await bed.events()).map((e) => e.status)).toEqual(results.map(() => 'handled'));
    });

    it('rm takes an object key on a model with two primary columns', async () => {
      const store = await bed.start({ models: [pairs] });
      await store.dispatch('PAIR.RESULT', {
        ins: [
          { a: 'x', b: '1', value: 1 },
          { a: 'x', b: '2', value: 2 },
        ],
      });
      await store.dispatch('PAIR.RESULT', {
        rm: [
          { a: 'x', b: '1' },
          { a: 'y', b: '1' },
        ],
        upd: [{ a: 'x', b: '2', value: 3 }],
      });
      expect(await bed.rows(PairEntity)).toEqual([{ a: 'x', b: '2', value: 3 }]);
    });

    it('ins of an existing row halts with an ApplyResultError naming the model and key; the event writes nothing', async () => {
      const store = await bed.start({ models: [items], retryDelayMs: 60_000 });
      await store.dispatch('ITEM.RESULT', { ins: [{ id: 'a', name: 'A', qty: 1 }] });
      const failing = store.dispatch('ITEM.RESULT', {
        set: [{ id: 'z', name: 'written before the failure' }],
        ins: [
          { id: 'b', name: 'B', qty: 2 },
          { id: 'a', name: 'again', qty: 9 },
        ],
      });
      await expect(failing).rejects.toBeInstanceOf(EventStoreHaltedError);
      await expect(failing).rejects.toThrow(
        'event v2 (ITEM.RESULT) failed in apply (model items): model "items", ins[1]: a row with key {"id":"a"} exists: ins only adds new rows (use set or sav to replace or change one)',
      );
      expect((await store.halted())?.error).toMatchObject({
        step: 'apply',
        model: 'items',
        name: 'ApplyResultError',
      });
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'a', name: 'A', qty: 1 }]);
      expect(await store.getVersion()).toBe(1);
    });

    it('upd of a missing row halts with an ApplyResultError naming the model and key', async () => {
      const store = await bed.start({ models: [items], retryDelayMs: 60_000 });
      await expect(store.dispatch('ITEM.RESULT', { upd: [{ id: 'nope', qty: 1 }] })).rejects.toThrow(
        'model "items", upd[0]: no row with key {"id":"nope"}: upd changes only existing rows (use sav to insert when missing)',
      );
      expect(await bed.rows(ItemEntity)).toEqual([]);
    });

    it('a row the database refuses (sav inserting without a NOT NULL column) halts in apply', async () => {
      const lines = defineModel<LedgerLine>({
        name: 'lines',
        entity: LedgerLineEntity,
        reducers: { 'LINE.RESULT': (event: StoreEvent<ReducerResult<LedgerLine>>) => event.data },
      });
      const store = await bed.start({ models: [lines, items], retryDelayMs: 60_000 });
      const failing = store.dispatch('LINE.RESULT', {
        sav: [
          { id: 'l1', account: 'acc', amount: 1, v: 1 },
          { id: 'l2', amount: 2 },
        ],
      });
      await expect(failing).rejects.toThrow(/failed in apply: .*(not-null|NOT NULL).*/);
      expect((await store.halted())?.error).toMatchObject({ step: 'apply', path: ['LINE.RESULT'] });
      expect(await bed.rows(LedgerLineEntity)).toEqual([]);
    });
  });

  describe('malformed reducer results halt, naming the model and the event type', () => {
    it.each([
      [
        'not an object (a string)',
        'RAW',
        { kind: 'string' },
        'it returned a string, not a result object or undefined',
      ],
      [
        'not an object (an array)',
        'RAW',
        { kind: 'array' },
        'it returned an array, not a result object or undefined',
      ],
      [
        'a class instance',
        'RAW',
        { kind: 'date' },
        'it returned an instance of Date, not a result object or undefined',
      ],
      ['a number', 'RAW', { kind: 'number' }, 'it returned a number'],
      [
        'rows that are not an array',
        'ITEM.RESULT',
        { ins: { id: 'a' } },
        '"ins" is an instance of Object, not an array of rows',
      ],
      [
        'a row that is not an object',
        'ITEM.RESULT',
        { sav: ['a'] },
        '"sav[0]" is a string, not a row object',
      ],
      [
        'a row without its primary key',
        'ITEM.RESULT',
        { ins: [{ name: 'x' }] },
        '"ins[0]" has no value for its primary column "id"',
      ],
      [
        'a row with a null primary key',
        'ITEM.RESULT',
        { upd: [{ id: null, qty: 1 }] },
        '"upd[0]" has no value for its primary column "id"',
      ],
      [
        'a row with a misspelt column',
        'ITEM.RESULT',
        { sav: [{ id: 'a', qyt: 1 }] },
        '"sav[0]" has "qyt", which is not a column of the model\'s entity (its columns: id, name, qty)',
      ],
      [
        'rm with an object lacking the key',
        'ITEM.RESULT',
        { rm: [{ name: 'x' }] },
        '"rm[0]" has no value for its primary column "id"',
      ],
      ['rm with a value that is no key', 'ITEM.RESULT', { rm: [true] }, '"rm[0]" is a boolean, not a key'],
      ['rm not an array', 'ITEM.RESULT', { rm: 'a' }, '"rm" is a string, not an array of keys'],
      [
        'rm with one value on a two-column key',
        'PAIR.RESULT',
        { rm: ['x'] },
        '"rm[0]" is a single value but the model has 2 primary columns: give an object',
      ],
      [
        'a sub-event without a type',
        'ITEM.RESULT',
        { events: [{ data: 1 }] },
        '"events[0]" is not a { type, data } sub-event',
      ],
    ])('%s', async (_case, type, data, problem) => {
      const store = await bed.start({ models: [items, pairs, raw], retryDelayMs: 60_000 });
      const model = type === 'RAW' ? 'raw' : type === 'PAIR.RESULT' ? 'pairs' : 'items';
      const { rejection, error } = await halts(store, type, data);
      expect(rejection).toBeInstanceOf(EventStoreHaltedError);
      expect(String(rejection)).toContain(
        `the reducer of model "${model}" for "${type}" returned a malformed result: ${problem}`,
      );
      expect(error).toMatchObject({ step: 'reduce', model, name: 'MalformedResultError', path: [type] });
      // Skipped, the store goes on with the next event.
      expect((await store.dispatch('ITEM.RESULT', { ins: [{ id: 'next', name: null, qty: null }] })).v).toBe(
        2,
      );
    });

    it("a deriver's malformed apply halts in derive, naming the model", async () => {
      const deriving = defineModel<Item>({
        name: 'deriving',
        entity: ItemEntity,
        derive: ({ apply }) => apply({ sav: [{ qty: 1 } as Item] }),
      });
      const store = await bed.start({ models: [deriving, pairs], retryDelayMs: 60_000 });
      const { error } = await halts(store, 'PAIR.RESULT', {});
      expect(error).toMatchObject({ step: 'derive', model: 'deriving' });
      expect(error?.message).toContain(
        `the reducer of model "deriving" for "PAIR.RESULT" returned a malformed result: (the deriver's apply) "sav[0]" has no value for its primary column "id"`,
      );
    });
  });
});
