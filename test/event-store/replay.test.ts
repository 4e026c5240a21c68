import { expect, it } from 'vitest';
import { EventStoreUsageError } from '../../src/event-store/index.js';
import {
  defineModel,
  type EventStore,
  EventStoreHaltedError,
  type ReducerResult,
  type StoreEvent,
} from '../../src/index.js';
import { type Item, ItemEntity } from '../fixtures/es-items.js';
import {
  type Account,
  AccountEntity,
  accounts,
  LEDGER_MODELS,
  LedgerLineEntity,
  TypeCountEntity,
} from '../fixtures/ledger-models.js';
import { type BedStoreOptions, describeOnBothDatabases, type StoreBed } from '../helpers/event-store-bed.js';

/** Items whose reducer throws during a replay at version `failAt.v`. */
function fragileItems(failAt: { v: number }) {
  return defineModel<Item>({
    name: 'items',
    entity: ItemEntity,
    reducers: {
      'ITEM.RESULT': (event: StoreEvent<ReducerResult<Item>>, { replaying }) => {
        if (replaying && event.v === failAt.v) throw new Error('the reducer changed and breaks here');
        return event.data;
      },
    },
  });
}

const failAt = { v: 0 };
const OPTIONS: BedStoreOptions = {
  models: [...LEDGER_MODELS, fragileItems(failAt)],
  unknownTypes: 'record',
  dispatchUnknownTypes: true,
  retryDelayMs: 60_000,
  batchSize: 4,
};

/** Every model table's rows. */
async function snapshot(bed: StoreBed) {
  return {
    accounts: await bed.rows(AccountEntity),
    lines: await bed.rows(LedgerLineEntity),
    counts: await bed.rows(TypeCountEntity),
    items: await bed.rows(ItemEntity),
  };
}

/**
 * A varied history: deposits opening accounts in sub-events, an overdraft
 * sub-event, an rm, items set and merged, a skipped event, a corrected one,
 * an ignored unknown type, and a batch queued at once.
 */
async function varied(store: EventStore) {
  const deposit = (id: string, amount: number, line: string) => ({ id, amount, line });
  await store.dispatch('ACCOUNT.DEPOSITED', deposit('a1', 10, 'l1'));
  await store.dispatch('ACCOUNT.DEPOSITED', deposit('a1', 5, 'l2'));
  await store.dispatch('ACCOUNT.WITHDRAWN', deposit('a1', 20, 'l3'));
  await store.dispatch('ACCOUNT.OPENED', { id: 'a2' });
  const reopened = store.dispatch('ACCOUNT.OPENED', { id: 'a2' });
  await expect(reopened).rejects.toBeInstanceOf(EventStoreHaltedError);
  await store.skip(5, { reason: 'opened twice' });
  const clash = store.dispatch('ACCOUNT.DEPOSITED', deposit('a2', 1, 'l1'));
  await expect(clash).rejects.toBeInstanceOf(EventStoreHaltedError);
  await store.correct(6, deposit('a2', 1, 'l4'), { reason: 'line ids are unique' });
  await store.handledVersion(6);
  await store.dispatch('GADGET.MADE', { id: 'g' }, { wait: false });
  await store.dispatch('ACCOUNT.OPENED', { id: 'a3' });
  await store.dispatch('ACCOUNT.CLOSED', { id: 'a3' });
  for (const [i, data] of [
    { set: [{ id: 'i1', name: 'one', qty: 1 }] },
    { ins: [{ id: 'i2', name: 'two', qty: 2 }], sav: [{ id: 'i1', qty: 10 }] },
    { rm: ['i2'], set: [{ id: 'i3', qty: 3 }] },
    { upd: [{ id: 'i1', name: null }] },
  ].entries()) {
    await store.dispatch('ITEM.RESULT', data, { wait: false, important: i === 0 });
  }
  for (let i = 0; i < 6; i++)
    await store.dispatch('ACCOUNT.DEPOSITED', deposit(`b${i % 2}`, i, `m${i}`), { wait: false });
  return store.waitForQueue();
}

describeOnBothDatabases('event store replay', (bed) => {
  it('replaying every model reproduces every table; history is untouched; onProgress is called', async () => {
    const store = await bed.start(OPTIONS);
    const version = await varied(store);
    const before = await snapshot(bed);
    const history = await bed.events();
    expect(history.map((e) => e.status)).toContain('skipped');
    expect(history.map((e) => e.status)).toContain('ignored');
    expect(before.accounts.map((a) => a.id)).toEqual(['a1', 'a2', 'b0', 'b1']);
    expect(before.items).toEqual([
      { id: 'i1', name: null, qty: 10 },
      { id: 'i3', name: null, qty: 3 },
    ]);

    const progress: unknown[] = [];
    const report = await store.replay({ onProgress: (p) => progress.push(p) });
    const handled = history.filter((e) => e.status === 'handled').length;
    expect(report).toEqual({
      models: ['accounts', 'ledger', 'typeCounts', 'items'],
      events: handled,
      version,
    });
    expect(progress).toEqual([{ done: handled, total: version, v: version }]);
    expect(await snapshot(bed)).toEqual(before);
    expect(await bed.events()).toEqual(history);
    expect(await store.getVersion()).toBe(version);

    // The store goes on after a replay.
    await store.dispatch('ACCOUNT.DEPOSITED', { id: 'a1', amount: 100, line: 'after' });
    expect((await bed.rows(AccountEntity))[0]).toMatchObject({ id: 'a1', balance: 95 });
  });

  it('replaying one model rebuilds only its table, the same as before', async () => {
    const store = await bed.start(OPTIONS);
    await varied(store);
    const before = await snapshot(bed);
    expect((await store.replay({ models: ['accounts'] })).models).toEqual(['accounts']);
    expect(await snapshot(bed)).toEqual(before);

    // Damage two tables behind the store's back: a replay of accounts repairs accounts only.
    await bed.read((manager) => manager.update(AccountEntity, { id: 'a1' }, { balance: 999 }));
    await bed.read((manager) => manager.delete(ItemEntity, { id: 'i3' }));
    await store.replay({ models: ['accounts', 'typeCounts'] });
    const after = await snapshot(bed);
    expect(after.accounts).toEqual(before.accounts);
    expect(after.items).toEqual(before.items.filter((i) => i.id !== 'i3'));
    await expect(store.replay({ models: ['nope'] })).rejects.toThrow(
      'no model is named "nope" (models: accounts, ledger, typeCounts, items)',
    );
  });

  it('a model whose reducer changed is rebuilt by a store with the new model, from the same history', async () => {
    const store = await bed.start(OPTIONS);
    await varied(store);
    const before = await snapshot(bed);
    await store.close();
    // The new accounts model keeps balances in cents.
    const inCents = defineModel<Account>({
      ...accounts,
      reducers: {
        ...accounts.reducers,
        'ACCOUNT.DEPOSITED': async (event: StoreEvent<{ id: string; amount: number }>, { get }) => {
          const row = await get(event.data.id);
          if (row === undefined) return undefined;
          return {
            upd: [{ id: row.id, balance: row.balance + event.data.amount * 100, deposits: row.deposits + 1 }],
          };
        },
        'ACCOUNT.WITHDRAWN': async (event: StoreEvent<{ id: string; amount: number }>, { get }) => {
          const row = await get(event.data.id);
          return { upd: [{ id: event.data.id, balance: (row?.balance ?? 0) - event.data.amount * 100 }] };
        },
      },
    });
    const migrated = bed.create({
      ...OPTIONS,
      models: [inCents, ...LEDGER_MODELS.slice(1), fragileItems(failAt)],
    });
    await migrated.replay({ models: ['accounts'] });
    const after = await snapshot(bed);
    expect(after.accounts).toEqual(before.accounts.map((a) => ({ ...a, balance: a.balance * 100 })));
    expect({ ...after, accounts: [] }).toEqual({ ...before, accounts: [] });
  });

  it('a replay that fails midway changes nothing and says where it failed', async () => {
    const store = await bed.start(OPTIONS);
    await varied(store);
    const before = await snapshot(bed);
    const [itemEvent] = (await bed.events()).filter((e) => e.type === 'ITEM.RESULT').slice(-1);
    failAt.v = itemEvent?.v ?? 0;
    try {
      const failing = store.replay();
      await expect(failing).rejects.toBeInstanceOf(EventStoreUsageError);
      await expect(failing).rejects.toThrow(
        `the replay failed at v${failAt.v} (ITEM.RESULT) in reduce of model items: the reducer changed and breaks here; nothing was changed`,
      );
    } finally {
      failAt.v = 0;
    }
    expect(await snapshot(bed)).toEqual(before);
    expect((await store.dispatch('ACCOUNT.OPENED', { id: 'z' })).status).toBe('handled');
  });

  it('a replay after pruning is refused with a clear error, and changes nothing', async () => {
    const store = await bed.start(OPTIONS);
    const version = await varied(store);
    const before = await snapshot(bed);
    expect(await store.prune({ keepLast: 5 })).toBeGreaterThan(0);
    await expect(store.replay()).rejects.toThrow(
      new RegExp(
        `history holds \\d+ of the ${version} handled events \\(it was pruned\\): a replay needs every event from v1`,
      ),
    );
    expect(await snapshot(bed)).toEqual(before);
  });

  it('prune by count keeps the last ones and the important ones (unless told), and never queued rows', async () => {
    const store = await bed.start({ ...OPTIONS, models: [fragileItems(failAt)] });
    for (let i = 1; i <= 8; i++) {
      await store.dispatch(
        'ITEM.RESULT',
        { sav: [{ id: `i${i}`, qty: i }] },
        { wait: false, important: i === 2 },
      );
    }
    await store.waitForQueue();
    // Halted at v9 with v10 waiting: both queued.
    await expect(store.dispatch('ITEM.RESULT', { upd: [{ id: 'missing', qty: 0 }] })).rejects.toBeInstanceOf(
      EventStoreHaltedError,
    );
    await store.dispatch('ITEM.RESULT', { sav: [{ id: 'later', qty: 0 }] }, { wait: false });

    expect(await store.prune({ keepLast: 3 })).toBe(4);
    expect((await bed.events()).map((e) => `${e.v}:${e.status}`)).toEqual([
      '2:handled',
      '6:handled',
      '7:handled',
      '8:handled',
      '9:queued',
      '10:queued',
    ]);
    expect(await store.prune({ keepLast: 0, keepImportant: false })).toBe(4);
    expect((await bed.events()).map((e) => e.v)).toEqual([9, 10]);
    await expect(store.handledVersion(3)).rejects.toThrow(
      'event v3 was handled, but its history row was pruned before it could be read',
    );
    expect(await store.getVersion()).toBe(8);
    expect(await bed.rows(ItemEntity)).toHaveLength(8);
  });

  it('prune by age deletes handled, skipped and ignored rows dispatched before the cut, keeping important ones', async () => {
    const store = await bed.start(OPTIONS);
    const old = Date.now() - 2 * 3_600_000;
    await store.dispatch('ACCOUNT.OPENED', { id: 'o1' }, { ts: old });
    await store.dispatch('ACCOUNT.OPENED', { id: 'o2' }, { ts: old, important: true });
    await expect(store.dispatch('ACCOUNT.OPENED', { id: 'o1' }, { ts: old })).rejects.toBeInstanceOf(
      EventStoreHaltedError,
    );
    await store.skip(3);
    await store.dispatch('GADGET.MADE', {}, { ts: old, wait: false });
    await store.dispatch('ACCOUNT.OPENED', { id: 'new' });
    expect(await store.getVersion()).toBe(5);

    expect(await store.prune({ olderThanMs: 3_600_000 })).toBe(3);
    expect((await bed.events()).map((e) => `${e.v}:${e.status}`)).toEqual(['2:handled', '5:handled']);
    expect(await store.prune({ olderThanMs: 3_600_000 })).toBe(0);
  });
});
