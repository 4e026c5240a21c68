import { expect, it } from 'vitest';
import { MalformedResultError } from '../../src/event-store/index.js';
import {
  defineModel,
  EventRejectedError,
  EventStoreHaltedError,
  type ReducerResult,
  type StoreEvent,
} from '../../src/index.js';
import { type Item, ItemEntity, type Trace, TraceEntity } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';

type Open = StoreEvent<{ id: string; sub?: string }>;

/**
 * `accounts`: `OPEN` inserts an item unless it exists, which it rejects
 * (`esFail`); with `sub`, the opening adds an `OPEN` sub-event for that id.
 * `ACCOUNT.OPEN.V1` is an old name its preprocessor turns into `OPEN`.
 */
const accounts = defineModel<Item>({
  name: 'accounts',
  entity: ItemEntity,
  types: ['ACCOUNT.OPEN.V1'],
  preprocess: (event) => (event.type === 'ACCOUNT.OPEN.V1' ? { type: 'OPEN', data: event.data } : undefined),
  reducers: {
    OPEN: async (event: Open, { get }): Promise<ReducerResult<Item>> => {
      if ((await get(event.data.id)) !== undefined) return { esFail: `account ${event.data.id} exists` };
      return {
        ins: [{ id: event.data.id, name: 'open', qty: 0 }],
        events: event.data.sub === undefined ? [] : [{ type: 'OPEN', data: { id: event.data.sub } }],
      };
    },
    BAD: () => ({ esFail: 42 as unknown as string }),
  },
});

/** Opens through transact's dispatch, keeping what the dispatch rejected with. */
function opener(caught: unknown[]) {
  return defineModel<Trace>({
    name: 'opener',
    entity: TraceEntity,
    types: ['OPEN.VIA.TRANSACT'],
    transact: async ({ event, dispatch }) => {
      if (event.type !== 'OPEN.VIA.TRANSACT') return;
      await dispatch('OPEN', event.data).catch((error: unknown) => caught.push(error));
    },
  });
}

describeOnBothDatabases('event store rejection', (bed) => {
  it('a reducer rejects with esFail: the dispatch rejects with the reason, history says rejected, the store goes on', async () => {
    const store = await bed.start({ models: [accounts], retryDelayMs: 60_000 });
    await store.dispatch('OPEN', { id: 'a' });
    const rejected = await store.dispatch('OPEN', { id: 'a' }).catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(EventRejectedError);
    expect(rejected).toMatchObject({
      code: 'COMMITBUS_EVENT_REJECTED',
      reason: 'account a exists',
      event: { v: 2, status: 'rejected' },
    });
    expect((rejected as Error).message).toMatch(
      /v2 \(OPEN\) was rejected by model accounts: account a exists/,
    );
    expect((await store.dispatch('OPEN', { id: 'b' })).v).toBe(3);
    expect(await store.halted()).toBeUndefined();
    await expect(store.handledVersion(2)).rejects.toBeInstanceOf(EventRejectedError);
    const rows = await bed.events();
    expect(rows.map((r) => r.status)).toEqual(['handled', 'rejected', 'handled']);
    expect(rows[1]).toMatchObject({
      attempts: 0,
      error: { step: 'reduce', model: 'accounts', path: ['OPEN'], message: 'account a exists' },
    });
    expect((await bed.rows<Item>(ItemEntity)).map((r) => r.id)).toEqual(['a', 'b']);
  });

  it("a sub-event's rejection rejects its whole event, and nothing of it is written; the batch goes on", async () => {
    const store = await bed.start({ models: [accounts], retryDelayMs: 60_000, batchSize: 10 });
    await store.dispatch('OPEN', { id: 'a' });
    const queued = [
      { id: 'b' },
      { id: 'c', sub: 'a' }, // c is written, then its sub-event finds a: all of it rolls back
      { id: 'd', sub: 'e' },
    ];
    for (const data of queued) await store.dispatch('OPEN', data, { wait: false });
    await store.waitForQueue();
    const rows = await bed.events();
    expect(rows.map((r) => r.status)).toEqual(['handled', 'handled', 'rejected', 'handled']);
    expect(rows[2]?.error).toMatchObject({ path: ['OPEN', 'OPEN'], message: 'account a exists' });
    expect((await bed.rows<Item>(ItemEntity)).map((r) => r.id)).toEqual(['a', 'b', 'd', 'e']);
    // A replay passes over the rejected event and builds the same tables.
    const live = await bed.rows(ItemEntity);
    await store.replay();
    expect(await bed.rows(ItemEntity)).toEqual(live);
  });

  it("a rejection in a sub-event transact dispatched rejects the event; transact's dispatch gets the reason", async () => {
    const caught: unknown[] = [];
    const store = await bed.start({ models: [accounts, opener(caught)], retryDelayMs: 60_000 });
    await store.dispatch('OPEN', { id: 'a' });
    await expect(store.dispatch('OPEN.VIA.TRANSACT', { id: 'a' })).rejects.toMatchObject({
      code: 'COMMITBUS_EVENT_REJECTED',
      reason: 'account a exists',
    });
    expect(caught.length).toBeGreaterThan(0);
    for (const error of caught) expect(error).toMatchObject({ reason: 'account a exists' });
    expect(await store.halted()).toBeUndefined();
  });

  it('a preprocessor may rename a type to its canonical form, which history keeps', async () => {
    const store = await bed.start({ models: [accounts] });
    const handled = await store.dispatch('ACCOUNT.OPEN.V1', { id: 'old' });
    expect(handled).toMatchObject({ type: 'OPEN', status: 'handled', data: { id: 'old' } });
    expect((await bed.events())[0]).toMatchObject({ type: 'OPEN', status: 'handled' });
    expect((await bed.rows<Item>(ItemEntity)).map((r) => r.id)).toEqual(['old']);
    await expect(store.dispatch('ACCOUNT.OPEN.V1', { id: 'old' })).rejects.toBeInstanceOf(EventRejectedError);
  });

  it('an esFail that is not a reason halts as a malformed result', async () => {
    const store = await bed.start({ models: [accounts], retryDelayMs: 60_000 });
    await expect(store.dispatch('BAD', {})).rejects.toBeInstanceOf(EventStoreHaltedError);
    expect((await store.halted())?.error).toMatchObject({
      step: 'reduce',
      name: MalformedResultError.name,
      message: expect.stringMatching(/"esFail" is a number, not a reason/),
    });
  });
});
