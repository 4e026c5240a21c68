import { expect, it } from 'vitest';
import {
  defineModel,
  EventStoreHaltedError,
  type ReducerResult,
  SendEventOp,
  type StoreEvent,
} from '../../src/index.js';
import { type Item, ItemEntity, ItemNotice } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';

// An event store cycle's `ctx.uow` is a unit of work the store commits with its
// batch: `uow.rollback()` there must not be ignored (the events it registered
// published as if nothing happened). It fails the event, saying why.
const rollingBack = defineModel<Item>({
  name: 'rolling_back',
  entity: ItemEntity,
  reducers: { 'ITEM.RESULT': (event: StoreEvent<ReducerResult<Item>>) => event.data },
  derive: ({ event, uow, replaying }) => {
    if (replaying) return;
    uow.register(new SendEventOp(ItemNotice.create({ item: 'rolled-back', v: event.v })));
    uow.rollback();
  },
});

describeOnBothDatabases('uow.rollback() in an event store cycle', (bed) => {
  it('fails the event with EventStoreUsageError: nothing published, the rows not written', async () => {
    const { bus, published } = await bed.bus([ItemNotice]);
    const store = await bed.start({ models: [rollingBack], bus, retryDelayMs: 60_000 });
    const { v } = await store.dispatch(
      'ITEM.RESULT',
      { ins: [{ id: 'a', name: null, qty: null }] },
      { wait: false },
    );
    const halted = await store.handledVersion(v).catch((e: unknown) => e);
    expect(halted).toBeInstanceOf(EventStoreHaltedError);
    expect((halted as Error).message).toMatch(/uow\.rollback\(\)/);
    await bus.outbox?.flush();
    await new Promise((r) => setTimeout(r, 200));
    expect(published).toEqual([]);
    expect(await bed.rows(ItemEntity)).toEqual([]);
    const outbox = await bed.read((manager) => manager.getRepository('CommitbusOutboxRecord').find());
    expect(outbox).toEqual([]);
  });
});

const swallowing = defineModel<Item>({
  name: 'swallowing',
  entity: ItemEntity,
  reducers: { 'ITEM.RESULT': (event: StoreEvent<ReducerResult<Item>>) => event.data },
  derive: async ({ manager, replaying }) => {
    if (replaying) return;
    await manager.query('SELECT 1/0').catch(() => {});
  },
});

describeOnBothDatabases('a failed statement caught in an event store cycle', (bed) => {
  it('on PostgreSQL fails the event naming that statement (TransactionAbortedError), the writer not stuck; on SQLite the event is handled', async () => {
    const store = await bed.start({ models: [swallowing], retryDelayMs: 60_000 });
    const { v } = await store.dispatch(
      'ITEM.RESULT',
      { ins: [{ id: 'a', name: null, qty: null }] },
      { wait: false },
    );
    const outcome = await store.handledVersion(v).catch((e: unknown) => e);
    if (bed.dialect === 'sqlite') {
      expect(outcome).toMatchObject({ v, status: 'handled' });
      expect(await bed.rows(ItemEntity)).toEqual([{ id: 'a', name: null, qty: null }]);
      return;
    }
    expect(outcome).toBeInstanceOf(EventStoreHaltedError);
    expect((outcome as Error).message).toMatch(/SELECT 1\/0/);
    expect((outcome as Error).message).toMatch(/division by zero/);
    expect(await bed.rows(ItemEntity)).toEqual([]);
  });
});
