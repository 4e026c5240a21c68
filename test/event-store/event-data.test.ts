import { expect, it } from 'vitest';
import { defineModel, EventStoreHaltedError, type StoreEvent } from '../../src/index.js';
import { type Item, ItemEntity, type Trace, TraceEntity } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';

type Tagged = StoreEvent<{ id: string; tags: string[]; n: number }>;

/** What the other steps saw of the event's data, by step. */
function witnesses(seen: Record<string, unknown>) {
  // Reduces first (declared first): tries to change the event, swallowing the refusal.
  const meddler = defineModel<Item>({
    name: 'meddler',
    entity: ItemEntity,
    reducers: {
      TAGGED: (event: Tagged) => {
        try {
          event.data.tags.push('meddled');
          event.data.n += 100;
        } catch (error) {
          seen.refusal = (error as Error).name;
        }
        return { sav: [{ id: event.data.id, name: event.data.tags.join(','), qty: event.data.n }] };
      },
    },
  });
  const witness = defineModel<Trace>({
    name: 'witness',
    entity: TraceEntity,
    reducers: {
      TAGGED: (event: Tagged) => {
        seen.reducer = structuredClone(event.data);
        return {
          ins: [{ id: event.data.id, v: event.v, type: event.data.tags.join(','), seq: event.data.n }],
        };
      },
    },
    derive: ({ event }) => {
      if (event.type === 'TAGGED') seen.deriver = structuredClone(event.data);
    },
  });
  return [meddler, witness];
}

describeOnBothDatabases('event store event data', (bed) => {
  it("one model's reducer cannot change the event another model and history see", async () => {
    const seen: Record<string, unknown> = {};
    const store = await bed.start({ models: witnesses(seen) });
    const dispatched = { id: 'x', tags: ['a'], n: 1 };
    const handled = await store.dispatch('TAGGED', dispatched);
    expect(seen.refusal).toBe('TypeError');
    expect(seen.reducer).toEqual({ id: 'x', tags: ['a'], n: 1 });
    expect(seen.deriver).toEqual({ id: 'x', tags: ['a'], n: 1 });
    expect(handled.data).toEqual({ id: 'x', tags: ['a'], n: 1 });
    expect((await bed.events())[0]?.data).toEqual({ id: 'x', tags: ['a'], n: 1 });
    expect(dispatched).toEqual({ id: 'x', tags: ['a'], n: 1 });
    expect(await bed.rows<Item>(ItemEntity)).toEqual([{ id: 'x', name: 'a', qty: 1 }]);
  });

  it('a replay rebuilds the tables the live run made', async () => {
    const seen: Record<string, unknown> = {};
    const store = await bed.start({ models: witnesses(seen) });
    await store.dispatch('TAGGED', { id: 'x', tags: ['a'], n: 1 });
    await store.dispatch('TAGGED', { id: 'y', tags: ['b', 'c'], n: 2 });
    const live = { items: await bed.rows(ItemEntity), traces: await bed.rows(TraceEntity) };
    await store.replay();
    expect({ items: await bed.rows(ItemEntity), traces: await bed.rows(TraceEntity) }).toEqual(live);
  });

  it("a preprocessor's output and a sub-event's data are copies: changing them later changes nothing", async () => {
    const kept: { tags: string[] }[] = [];
    const model = defineModel<Item>({
      name: 'items',
      entity: ItemEntity,
      preprocess: (event) => {
        if (event.type !== 'TAGGED') return undefined;
        const data = { ...(event.data as object), tags: ['canonical'] };
        kept.push(data);
        return { type: event.type, data };
      },
      reducers: {
        TAGGED: (event: Tagged) => {
          const sub = { id: `${event.data.id}-sub`, tags: ['child'], n: 0 };
          kept.push(sub);
          return { events: [{ type: 'CHILD', data: sub }] };
        },
        CHILD: (event: Tagged) => {
          // The parent's objects, changed after they were handed over.
          for (const data of kept) data.tags.push('changed later');
          return { sav: [{ id: event.data.id, name: event.data.tags.join(','), qty: 0 }] };
        },
      },
    });
    const store = await bed.start({ models: [model] });
    const handled = await store.dispatch('TAGGED', { id: 'p', tags: ['raw'], n: 1 });
    expect(handled.data).toEqual({ id: 'p', tags: ['canonical'], n: 1 });
    expect(handled.events[0]?.data).toEqual({ id: 'p-sub', tags: ['child'], n: 0 });
    expect((await bed.events())[0]).toMatchObject({
      data: { id: 'p', tags: ['canonical'], n: 1 },
      events: [{ type: 'CHILD', data: { id: 'p-sub', tags: ['child'], n: 0 } }],
    });
    expect(await bed.rows<Item>(ItemEntity)).toEqual([{ id: 'p-sub', name: 'child', qty: 0 }]);
  });

  it('a reducer that changes the event without catching fails it, with a message saying why', async () => {
    const model = defineModel<Item>({
      name: 'items',
      entity: ItemEntity,
      reducers: {
        TAGGED: (event: Tagged) => {
          event.data.n += 1;
          return undefined;
        },
      },
    });
    const store = await bed.start({ models: [model], retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    await expect(store.dispatch('TAGGED', { id: 'x', tags: [], n: 1 })).rejects.toBeInstanceOf(
      EventStoreHaltedError,
    );
    const [row] = await bed.events();
    expect(row?.error).toMatchObject({ step: 'reduce', model: 'items', name: 'TypeError' });
  });
});
