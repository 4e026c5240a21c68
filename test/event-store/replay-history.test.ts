import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { defineModel, type StoreEvent } from '../../src/index.js';
import { type Item, ItemEntity, type Trace, TraceEntity } from '../fixtures/es-items.js';
import { describeOnBothDatabases, type StoreBed } from '../helpers/event-store-bed.js';

type Order = StoreEvent<{ id: string; qty: number }>;

/**
 * `orders` keeps an item per order; its deriver adds `TALLY` sub-events,
 * one per unit in release 1, one per order (with the quantity) in release 2.
 * `tallies` writes a trace row per `TALLY`.
 */
function models(release: { n: 1 | 2 }) {
  const orders = defineModel<Item>({
    name: 'orders',
    entity: ItemEntity,
    reducers: { ORDER: (e: Order) => ({ sav: [{ id: e.data.id, name: 'order', qty: e.data.qty }] }) },
    derive: ({ event, addEvent }) => {
      if (event.type !== 'ORDER') return;
      const { id, qty } = event.data as Order['data'];
      if (release.n === 1) for (let i = 0; i < qty; i++) addEvent('TALLY', { id: `${id}.${i}`, n: 1 });
      else addEvent('TALLY', { id, n: qty });
    },
  });
  const tallies = defineModel<Trace>({
    name: 'tallies',
    entity: TraceEntity,
    reducers: {
      TALLY: (e: StoreEvent<{ id: string; n: number }>) => ({
        ins: [{ id: e.data.id, v: e.v, type: e.type, seq: e.data.n }],
      }),
    },
  });
  return [orders, tallies];
}

/** A hash of every model table's rows. */
async function tablesHash(bed: StoreBed): Promise<string> {
  const rows = { items: await bed.rows(ItemEntity), traces: await bed.rows(TraceEntity) };
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
}

describeOnBothDatabases('event store replay equals history', (bed) => {
  it('after a deriver changed: a full replay and then a partial one give the same tables', async () => {
    const release = { n: 1 as 1 | 2 };
    const store = await bed.start({ models: models(release), batchSize: 3 });
    for (const [i, qty] of [2, 1, 3, 2].entries()) {
      await store.dispatch('ORDER', { id: `o${i}`, qty }, { wait: false });
    }
    await store.waitForQueue();

    release.n = 2; // the release that changes the deriver
    await store.replay();
    const full = await tablesHash(bed);
    const rewritten = await bed.events();
    expect(rewritten[0]?.events).toEqual([
      { type: 'TALLY', data: { id: 'o0', n: 2 }, result: expect.anything(), events: [] },
    ]);
    expect((await bed.rows<Trace>(TraceEntity)).map((t) => [t.id, t.seq])).toEqual([
      ['o0', 2],
      ['o1', 1],
      ['o2', 3],
      ['o3', 2],
    ]);

    await store.replay({ models: ['tallies'] });
    expect(await tablesHash(bed)).toBe(full);
    await store.replay({ models: ['orders'] });
    expect(await tablesHash(bed)).toBe(full);
    // Nothing else in history moved: versions, statuses, data.
    expect((await bed.events()).map((r) => [r.v, r.status, r.data])).toEqual(
      rewritten.map((r) => [r.v, r.status, r.data]),
    );
  });

  it('a full replay rewrites the stored results as the code now makes them', async () => {
    const release = { n: 1 as 1 | 2 };
    const store = await bed.start({ models: models(release) });
    await store.dispatch('ORDER', { id: 'a', qty: 2 });
    release.n = 2;
    await store.replay();
    const [row] = await store.history(1, 1);
    expect(row?.events.map((e) => e.result)).toEqual([
      { tallies: { ins: [{ id: 'a', v: 1, type: 'TALLY', seq: 2 }] } },
    ]);
    expect(row?.result).toEqual({ orders: { sav: [{ id: 'a', name: 'order', qty: 2 }] } });
  });
});
