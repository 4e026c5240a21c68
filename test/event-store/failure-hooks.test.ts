import { expect, it } from 'vitest';
import { EventStoreTimeoutError } from '../../src/event-store/index.js';
import {
  defineModel,
  EventRejectedError,
  EventStoreHaltedError,
  type ReducerResult,
  type StoreEvent,
  type StoreFailure,
} from '../../src/index.js';
import { type Item, ItemEntity, items } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';
import { waitFor } from '../helpers/wait-for.js';

/** `CLAIM` inserts an item, rejecting one that exists; `BREAK` throws while `broken.on`. */
function claims(broken: { on: boolean }) {
  return defineModel<Item>({
    name: 'claims',
    entity: ItemEntity,
    reducers: {
      CLAIM: async (e: StoreEvent<{ id: string }>, { get }): Promise<ReducerResult<Item>> =>
        (await get(e.data.id))
          ? { esFail: `${e.data.id} is taken` }
          : { ins: [{ id: e.data.id, name: null, qty: 1 }] },
      BREAK: () => {
        if (broken.on) throw new Error('the reducer is broken');
        return undefined;
      },
    },
  });
}

describeOnBothDatabases('event store failure hooks', (bed) => {
  it('onFailure hears each halted attempt and each rejection, with the event and its failure', async () => {
    const broken = { on: true };
    const heard: StoreFailure[] = [];
    const store = await bed.start({ models: [claims(broken)], retryDelayMs: 20, maxRetryDelayMs: 20 });
    store.onFailure((notice) => {
      heard.push(notice);
    });
    await store.dispatch('CLAIM', { id: 'a' });
    await expect(store.dispatch('CLAIM', { id: 'a' })).rejects.toBeInstanceOf(EventRejectedError);
    await waitFor('the rejection heard', () => heard.length >= 1);
    expect(heard[0]).toMatchObject({
      kind: 'rejected',
      event: { v: 2, type: 'CLAIM', status: 'rejected' },
      failure: { step: 'reduce', model: 'claims', message: 'a is taken' },
    });

    const failing = store.dispatch('BREAK', {});
    await expect(failing).rejects.toBeInstanceOf(EventStoreHaltedError);
    await waitFor('two failed attempts heard', () => heard.filter((n) => n.kind === 'halted').length >= 2);
    const halts = heard.filter((n) => n.kind === 'halted');
    expect(halts[0]).toMatchObject({
      kind: 'halted',
      event: { v: 3, type: 'BREAK', status: 'queued', attempts: 1 },
      failure: { step: 'reduce', model: 'claims', message: 'the reducer is broken' },
      retryInMs: 20,
    });
    expect(halts[1]?.event.attempts).toBe(2);
    broken.on = false;
    await waitFor('v3 handled once fixed', async () => (await store.getVersion()) === 3);
  });

  it('a listener that throws is logged and changes nothing; the remover stops it', async () => {
    const heard: number[] = [];
    const store = await bed.start({ models: [claims({ on: false })] });
    store.onFailure(() => {
      throw new Error('a broken alert');
    });
    const remove = store.onFailure((notice) => {
      heard.push(notice.event.v);
    });
    await store.dispatch('CLAIM', { id: 'a' });
    await expect(store.dispatch('CLAIM', { id: 'a' })).rejects.toBeInstanceOf(EventRejectedError);
    await waitFor('the rejection heard', () => heard.length === 1);
    await waitFor('the throwing listener logged', () =>
      bed.logs.some((l) => l.level === 'warn' && /failure listener/.test(l.message)),
    );
    remove();
    await expect(store.dispatch('CLAIM', { id: 'a' })).rejects.toBeInstanceOf(EventRejectedError);
    expect((await store.dispatch('CLAIM', { id: 'b' })).v).toBe(4);
    expect(heard).toEqual([2]);
  });
});

describeOnBothDatabases('event store handledVersion ahead of the queue', (bed) => {
  it('handledVersion(v) for a version not yet queued waits until it is dispatched and handled', async () => {
    const store = await bed.start({ models: [items] });
    const waiting = store.handledVersion(2);
    let settled = false;
    const settle = () => {
      settled = true;
    };
    waiting.then(settle, settle);
    await store.dispatch('ITEM.RESULT', { sav: [{ id: 'a', qty: 1 }] });
    expect(settled).toBe(false);
    await store.dispatch('ITEM.RESULT', { sav: [{ id: 'b', qty: 2 }] }, { wait: false });
    expect(await waiting).toMatchObject({ v: 2, status: 'handled', data: { sav: [{ id: 'b', qty: 2 }] } });
  });

  it('with timeoutMs it gives up with EventStoreTimeoutError when the version never comes', async () => {
    const store = await bed.start({ models: [items] });
    await expect(store.handledVersion(5, { timeoutMs: 50 })).rejects.toBeInstanceOf(EventStoreTimeoutError);
  });
});
