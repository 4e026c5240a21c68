import { expect, it } from 'vitest';
import {
  EventStoreUsageError,
  InvalidStoreEventError,
  type TransactContext,
  UnknownStoreEventTypeError,
} from '../../src/event-store/index.js';
import { defineModel, EventStoreHaltedError } from '../../src/index.js';
import { type Item, ItemEntity, items, type Trace, TraceEntity } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';

type Dispatch = TransactContext<Trace>['dispatch'];

/** A model whose transact runs `body` for `FAN.OUT` with transact's `dispatch`. */
function fanOut(body: (dispatch: Dispatch) => Promise<void>) {
  return defineModel<Trace>({
    name: 'fan',
    entity: TraceEntity,
    types: ['FAN.OUT'],
    transact: async ({ event, dispatch }) => {
      if (event.type === 'FAN.OUT') await body(dispatch);
    },
  });
}

const ins = (id: string, qty = 1) => ({ ins: [{ id, name: null, qty }] });

describeOnBothDatabases('event store transact dispatch', (bed) => {
  it('sub-events dispatched without await all run, in dispatch order, inside the event', async () => {
    const fan = fanOut(async (dispatch) => {
      void dispatch('ITEM.RESULT', ins('a'));
      // Needs "a": runs after it only if dispatches run in call order.
      void dispatch('ITEM.RESULT', { upd: [{ id: 'a', qty: 2 }] });
      void dispatch('ITEM.RESULT', ins('b'));
      await dispatch('ITEM.RESULT', ins('c'));
    });
    const store = await bed.start({ models: [items, fan] });
    const handled = await store.dispatch('FAN.OUT', {});
    expect(handled.events.map((e) => e.data)).toEqual([
      ins('a'),
      { upd: [{ id: 'a', qty: 2 }] },
      ins('b'),
      ins('c'),
    ]);
    expect(await bed.rows<Item>(ItemEntity)).toEqual([
      { id: 'a', name: null, qty: 2 },
      { id: 'b', name: null, qty: 1 },
      { id: 'c', name: null, qty: 1 },
    ]);
  });

  it('a dispatch chained on another, never awaited, still runs before the commit', async () => {
    const fan = fanOut(async (dispatch) => {
      void dispatch('ITEM.RESULT', ins('a')).then(() => dispatch('ITEM.RESULT', ins('b')));
    });
    const store = await bed.start({ models: [items, fan] });
    const handled = await store.dispatch('FAN.OUT', {});
    expect(handled.events.map((e) => e.data)).toEqual([ins('a'), ins('b')]);
    expect((await bed.rows<Item>(ItemEntity)).map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('a failing sub-event nobody awaited fails the event: nothing of it commits', async () => {
    const fan = fanOut(async (dispatch) => {
      void dispatch('ITEM.RESULT', ins('a'));
      void dispatch('ITEM.RESULT', ins('a')); // an existing row: apply fails
      void dispatch('ITEM.RESULT', ins('b'));
    });
    const store = await bed.start({ models: [items, fan], retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    await expect(store.dispatch('FAN.OUT', {})).rejects.toBeInstanceOf(EventStoreHaltedError);
    const [row] = await bed.events();
    expect(row).toMatchObject({ status: 'queued', attempts: 1 });
    expect(row?.error).toMatchObject({ step: 'apply', model: 'items', path: ['FAN.OUT', 'ITEM.RESULT'] });
    expect(await bed.rows(ItemEntity)).toEqual([]);
    expect(await bed.versions()).toEqual({ queued: 1, handled: 0 });
  });

  it('a caught failing dispatch still fails the event; the caller gets the cause, not an internal class', async () => {
    const caught: unknown[] = [];
    const fan = fanOut(async (dispatch) => {
      await dispatch('ITEM.RESULT', ins('a'));
      await dispatch('ITEM.RESULT', { upd: [{ id: 'missing', qty: 1 }] }).catch((e: unknown) =>
        caught.push(e),
      );
    });
    const store = await bed.start({ models: [items, fan], retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    await expect(store.dispatch('FAN.OUT', {})).rejects.toBeInstanceOf(EventStoreHaltedError);
    // The writer may run the event twice (a batch, then the event alone): each time the same cause.
    expect(caught.length).toBeGreaterThan(0);
    for (const error of caught) expect(error).toMatchObject({ code: 'COMMITBUS_EVENT_STORE_APPLY' });
    expect(await bed.rows(ItemEntity)).toEqual([]);
  });

  it('an invalid ctx.dispatch rejects with a coded error and fails the event', async () => {
    const caught: unknown[] = [];
    const fan = fanOut(async (dispatch) => {
      await dispatch('NO.SUCH.TYPE', {}).catch((e: unknown) => caught.push(e));
      await dispatch('ITEM.RESULT', { n: Number.NaN }).catch((e: unknown) => caught.push(e));
      await dispatch('', {}).catch((e: unknown) => caught.push(e));
    });
    const store = await bed.start({ models: [items, fan], retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    await expect(store.dispatch('FAN.OUT', {})).rejects.toBeInstanceOf(EventStoreHaltedError);
    expect(caught[0]).toBeInstanceOf(UnknownStoreEventTypeError);
    expect(caught[1]).toBeInstanceOf(InvalidStoreEventError);
    expect(caught[2]).toBeInstanceOf(InvalidStoreEventError);
    const [row] = await bed.events();
    expect(row?.error).toMatchObject({ step: 'transact', model: 'fan', name: 'UnknownStoreEventTypeError' });
  });

  it('ctx.dispatch kept and called after transact settled is refused with a usage error', async () => {
    let kept: Dispatch | undefined;
    const fan = fanOut(async (dispatch) => {
      kept = dispatch;
    });
    const store = await bed.start({ models: [items, fan] });
    await store.dispatch('FAN.OUT', {});
    const late = kept?.('ITEM.RESULT', ins('late'));
    await expect(late).rejects.toBeInstanceOf(EventStoreUsageError);
    await expect(late).rejects.toThrow(/after the transact callback of model fan settled/);
    expect(await bed.rows(ItemEntity)).toEqual([]);
  });
});
