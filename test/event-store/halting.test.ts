import { describe, expect, it } from 'vitest';
import { EventStoreUsageError, InvalidStoreEventError } from '../../src/event-store/index.js';
import {
  defineModel,
  EventSkippedError,
  type EventStore,
  EventStoreHaltedError,
  type HistoryEvent,
  type ReducerResult,
  type StoreEvent,
} from '../../src/index.js';
import { type Item, ItemEntity, PairEntity, pairs, type Trace, TraceEntity } from '../fixtures/es-items.js';
import { describeOnBothDatabases, type StoreBed } from '../helpers/event-store-bed.js';
import { waitFor } from '../helpers/wait-for.js';

type Order = StoreEvent<{ id: string; freeze?: boolean }>;

/**
 * A shop: `ORDER` inserts an item and, in a sub-event, a pair; the guard's
 * transact step then fails an order with `freeze: true` while `frozen.on`.
 */
function shop(frozen: { on: boolean }) {
  const stock = defineModel<Item>({
    name: 'stock',
    entity: ItemEntity,
    reducers: {
      'ITEM.RESULT': (event: StoreEvent<ReducerResult<Item>>) => event.data,
      ORDER: (event: Order) => ({
        ins: [{ id: event.data.id, name: 'ordered', qty: 1 }],
        events: [{ type: 'PAIR.RESULT', data: { ins: [{ a: event.data.id, b: 'sub', value: 1 }] } }],
      }),
    },
  });
  const guard = defineModel<Trace>({
    name: 'guard',
    entity: TraceEntity,
    transact: async ({ event, manager }) => {
      if (event.type !== 'ORDER') return;
      // A query: the order's writes and its sub-event's are in the database when it fails.
      const ordered = await manager
        .getRepository(PairEntity)
        .countBy({ a: (event.data as Order['data']).id });
      if (ordered === 1 && (event.data as Order['data']).freeze === true && frozen.on)
        throw new Error('the stock is frozen');
    },
  });
  return [stock, pairs, guard];
}

const item = (id: string) => ({ ins: [{ id, name: null, qty: null }] });

/**
 * Queues a, b, a frozen order c, then d and e before the writer starts, so
 * the five share one batch; starts it and waits until it halts at v3.
 */
async function haltInTheMiddle(store: EventStore, handled: HistoryEvent[]) {
  store.addListener((event) => {
    handled.push(event);
  });
  for (const data of [item('a'), item('b')]) await store.dispatch('ITEM.RESULT', data, { wait: false });
  const order = await store.dispatch('ORDER', { id: 'c', freeze: true }, { wait: false });
  for (const data of [item('d'), item('e')]) await store.dispatch('ITEM.RESULT', data, { wait: false });
  const waiting = store.handledVersion(order.v);
  const queue = store.waitForQueue();
  await store.start();
  await expect(waiting).rejects.toBeInstanceOf(EventStoreHaltedError);
  await expect(waiting).rejects.toThrow(
    'event v3 (ORDER) failed in transact (model guard): the stock is frozen. It stays queued and the writer retries it',
  );
  // Waiting for the queue ends at the halt; waiting for a later event goes on (its own event did not fail).
  await expect(queue).rejects.toMatchObject({
    name: 'EventStoreHaltedError',
    waitingFor: 5,
    event: { v: 3 },
  });
  await expect(store.handledVersion(5, { timeoutMs: 100 })).rejects.toMatchObject({
    name: 'EventStoreTimeoutError',
    v: 5,
  });
}

const ids = async (bed: StoreBed) => (await bed.rows(ItemEntity)).map((r) => r.id);

describeOnBothDatabases('event store halting', (bed) => {
  describe('a failing event in the middle of a batch', () => {
    it('rolls back alone: the events before it commit, later ones wait, its sub-events leave nothing', async () => {
      const handled: HistoryEvent[] = [];
      const store = bed.create({
        models: shop({ on: true }),
        batchSize: 10,
        retryDelayMs: 60_000,
        maxRetryDelayMs: 60_000,
      });
      await haltInTheMiddle(store, handled);

      expect(await ids(bed)).toEqual(['a', 'b']);
      expect(await bed.rows(PairEntity)).toEqual([]);
      expect(await store.getVersion()).toBe(2);
      expect(handled.map((e) => e.v)).toEqual([1, 2]);
      const rows = await bed.events();
      expect(rows.map((r) => r.status)).toEqual(['handled', 'handled', 'queued', 'queued', 'queued']);
      expect(rows[2]).toMatchObject({
        attempts: 1,
        result: null,
        error: {
          step: 'transact',
          model: 'guard',
          path: ['ORDER'],
          name: 'Error',
          message: 'the stock is frozen',
        },
      });
      expect(rows[3]).toMatchObject({ attempts: 0, error: null });
      const halted = await store.halted();
      expect(halted).toMatchObject({ v: 3, type: 'ORDER', status: 'queued', attempts: 1 });
      expect(halted?.error?.message).toBe('the stock is frozen');
      expect(bed.logs.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
        expect.stringMatching(
          /^event store halted at v3 \(ORDER\): transact of model guard failed: the stock is frozen/,
        ),
      ]);
    });

    it('store.retry() after the cause is fixed handles it and the rest; the retry is in its audit and logged', async () => {
      const frozen = { on: true };
      const handled: HistoryEvent[] = [];
      const store = bed.create({
        models: shop(frozen),
        batchSize: 10,
        retryDelayMs: 60_000,
        maxRetryDelayMs: 60_000,
      });
      await haltInTheMiddle(store, handled);

      frozen.on = false;
      const retried = await store.retry({ by: 'ada', reason: 'unfroze the stock' });
      expect(retried.audit).toEqual([
        {
          action: 'retry',
          at: expect.any(Number),
          by: 'ada',
          reason: 'unfroze the stock',
          error: expect.objectContaining({ step: 'transact', message: 'the stock is frozen' }),
        },
      ]);
      expect(await store.waitForQueue()).toBe(5);
      expect(await ids(bed)).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(await bed.rows(PairEntity)).toEqual([{ a: 'c', b: 'sub', value: 1 }]);
      const v3 = await store.handledVersion(3);
      expect(v3).toMatchObject({ status: 'handled', attempts: 0, audit: [{ action: 'retry', by: 'ada' }] });
      expect(v3.error).toBeUndefined();
      expect(handled.map((e) => e.v)).toEqual([1, 2, 3, 4, 5]);
      expect(bed.logs.filter((l) => l.level === 'warn')).toEqual([
        {
          level: 'warn',
          fields: { action: 'retry', v: 3, type: 'ORDER', by: 'ada', reason: 'unfroze the stock' },
          message: 'event store: operator retry of v3 (ORDER)',
        },
      ]);
    });

    it('store.correct() replaces its data (the old one kept in the audit) and handles it and the rest', async () => {
      const store = bed.create({
        models: shop({ on: true }),
        batchSize: 10,
        retryDelayMs: 60_000,
        maxRetryDelayMs: 60_000,
      });
      await haltInTheMiddle(store, []);

      // A queued event after the halt can be corrected too.
      await store.correct(4, item('d2'), { by: 'ops' });
      const corrected = await store.correct(3, { id: 'c' }, { by: 'ada', reason: 'not frozen after all' });
      expect(corrected).toMatchObject({ v: 3, data: { id: 'c' }, attempts: 0, status: 'queued' });
      expect(await store.waitForQueue()).toBe(5);
      expect(await ids(bed)).toEqual(['a', 'b', 'c', 'd2', 'e']);
      const [v3, v4] = await store.history(3, 4);
      expect(v3).toMatchObject({
        status: 'handled',
        data: { id: 'c' },
        audit: [
          {
            action: 'correct',
            by: 'ada',
            reason: 'not frozen after all',
            previousData: { id: 'c', freeze: true },
          },
        ],
      });
      expect(v3?.audit[0]?.error).toMatchObject({ message: 'the stock is frozen' });
      expect(v4).toMatchObject({
        status: 'handled',
        audit: [{ action: 'correct', by: 'ops', previousData: item('d') }],
      });
      expect(bed.logs.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
        'event store: operator correct of v4 (ITEM.RESULT)',
        'event store: operator correct of v3 (ORDER)',
      ]);
    });

    it('store.skip() records it as skipped with its error and goes on; waiting for it rejects EventSkippedError', async () => {
      const store = bed.create({
        models: shop({ on: true }),
        batchSize: 10,
        retryDelayMs: 60_000,
        maxRetryDelayMs: 60_000,
      });
      await haltInTheMiddle(store, []);

      const skipped = await store.skip(3, { by: 'ada', reason: 'a bad order' });
      expect(skipped).toMatchObject({ v: 3, status: 'skipped', error: { message: 'the stock is frozen' } });
      expect(skipped.audit).toEqual([
        expect.objectContaining({ action: 'skip', by: 'ada', reason: 'a bad order', error: skipped.error }),
      ]);
      expect(await store.waitForQueue()).toBe(5);
      expect(await ids(bed)).toEqual(['a', 'b', 'd', 'e']);
      expect(await bed.rows(PairEntity)).toEqual([]);
      expect((await bed.events()).map((r) => r.status)).toEqual([
        'handled',
        'handled',
        'skipped',
        'handled',
        'handled',
      ]);
      const waiting = store.handledVersion(3);
      await expect(waiting).rejects.toBeInstanceOf(EventSkippedError);
      await expect(waiting).rejects.toThrow(
        'event v3 (ORDER) was skipped by an operator; it changed no table',
      );
      expect(await store.halted()).toBeUndefined();
      expect(bed.logs.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
        'event store: operator skip of v3 (ORDER)',
      ]);
    });
  });

  it('a halted event is retried on its own with backoff, and the store goes on once the cause is gone', async () => {
    const frozen = { on: true };
    const store = await bed.start({ models: shop(frozen), retryDelayMs: 10, maxRetryDelayMs: 40 });
    await expect(store.dispatch('ORDER', { id: 'c', freeze: true })).rejects.toBeInstanceOf(
      EventStoreHaltedError,
    );
    // Dispatched while halted: it waits behind v1 (its own event did not fail) and is handled once v1 is.
    const next = store.dispatch('ITEM.RESULT', item('d'));
    await waitFor('three attempts', async () => ((await store.halted())?.attempts ?? 0) >= 3);
    expect(await ids(bed)).toEqual([]);

    frozen.on = false;
    expect(await next).toMatchObject({ v: 2, status: 'handled' });
    // An attempt already under way may still fail once: wait for the version, not for v2's outcome.
    await waitFor('the store past v2', async () => (await store.getVersion()) === 2);
    expect(await ids(bed)).toEqual(['c', 'd']);
    const [v1] = await store.history(1, 1);
    expect(v1?.attempts).toBeGreaterThanOrEqual(3);
    expect(v1?.audit).toEqual([]);
    const attempts = bed.logs
      .filter((l) => l.level === 'error')
      .map((l) => l.fields as { retryInMs: number });
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    // 10, 20, 40, 40, ... ms: doubling up to maxRetryDelayMs.
    expect(attempts.slice(0, 3).map((a) => a.retryInMs)).toEqual([10, 20, 40]);
    expect(attempts.every((a) => a.retryInMs <= 40)).toBe(true);
  });

  it('a halt the writer reports late (listeners were slow) does not fail a dispatch made after the skip', async () => {
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = bed.create({
      models: shop({ on: true }),
      batchSize: 10,
      retryDelayMs: 60_000,
      maxRetryDelayMs: 60_000,
    });
    // v1's listener holds the writer after the batch that commits v1 and records v2's failure.
    store.addListener(() => slow);
    await store.dispatch('ITEM.RESULT', item('a'), { wait: false });
    const order = await store.dispatch('ORDER', { id: 'c', freeze: true }, { wait: false });
    const waiting = store.handledVersion(order.v);
    await store.start();
    await expect(waiting).rejects.toBeInstanceOf(EventStoreHaltedError);
    await store.skip(order.v, { by: 'ops' });
    const queued = await store.dispatch('ITEM.RESULT', item('d'), { wait: false });
    const after = store.handledVersion(queued.v);
    release();
    expect(await after).toMatchObject({ v: 3, status: 'handled' });
    expect(await ids(bed)).toEqual(['a', 'd']);
  });

  describe('operator actions refuse what they cannot do', () => {
    it('retry when not halted, skip or correct of a handled, missing or not-next event, correct with bad data', async () => {
      const store = bed.create({ models: shop({ on: true }), retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
      await store.start();
      await store.dispatch('ITEM.RESULT', item('a'));
      await expect(store.retry()).rejects.toThrow('the event store is not halted: nothing to retry');
      await expect(store.skip(1)).rejects.toThrow(
        'event v1 was handled already (status handled): only a queued event can be skipped',
      );
      await expect(store.correct(9, {})).rejects.toThrow(
        'event v9 does not exist: only a queued event can be corrected',
      );

      await expect(store.dispatch('ORDER', { id: 'c', freeze: true })).rejects.toBeInstanceOf(
        EventStoreHaltedError,
      );
      const later = await store.dispatch('ITEM.RESULT', item('d'), { wait: false });
      await expect(store.skip(later.v)).rejects.toThrow(
        'event v3 is not next (the store is at v1): only the event the store is halted at, v2, can be skipped',
      );
      await expect(store.correct(2, { id: 'c', bad: Number.NaN })).rejects.toBeInstanceOf(
        InvalidStoreEventError,
      );
      await expect(store.retry()).resolves.toMatchObject({ v: 2 });
      await waitFor('the retry to fail again', async () => ((await store.halted())?.attempts ?? 0) >= 1);
      const rows = await bed.events();
      expect(rows.map((r) => r.status)).toEqual(['handled', 'queued', 'queued']);
      expect(rows[1]).toMatchObject({ data: { id: 'c', freeze: true } });
      expect(rows[1]?.audit.map((a) => a.action)).toEqual(['retry']);
      expect(rows[2]?.audit).toEqual([]);
      await expect(store.skip(2)).resolves.toMatchObject({ status: 'skipped' });
      await expect(store.retry()).rejects.toBeInstanceOf(EventStoreUsageError);
      expect(await store.waitForQueue()).toBe(3);
    });
  });
});
