import { describe, expect, it } from 'vitest';
import { HandledEventEntity } from '../../src/idempotency/handled-event.entity.js';
import { defineHandler, type EventBus, type HandlerContext, handlers } from '../../src/index.js';
import { type IdempotentSetup, idempotentBed } from '../helpers/idempotent-bed.js';
import { Recorder } from '../helpers/recorder.js';
import { RecordRow } from '../helpers/records.js';
import { OrderEvent, OrderPaid, orderPaid, SHOP_EVENTS, ShopEvent } from '../helpers/shop-events.js';

const bed = idempotentBed('commitbus_test_i12types');
const { buses } = bed;

const setups: IdempotentSetup[] = [bed.onSqlite, bed.onPostgres];

/** The sync handlers, as they must run per event: parent key first, each key's in listing order. */
const SYNC = ['shop.any', 'shop.audit', 'orders.sync', 'orders.audit', 'paid.sync'];

/** Builds the typed `EVENT_HANDLERS`, its `on` calls deliberately not in key order. */
function shopHandlers(rec: Recorder) {
  /** Defined idempotent: `ctx.uow` is typed as set, and its write commits with the record. */
  const ledger = defineHandler(
    'orders.ledger',
    async (event: OrderPaid, ctx) => {
      rec.runs.push({
        handler: 'orders.ledger',
        eventId: event.id,
        key: event.handlingKey,
        attempt: ctx.attempt,
      });
      await ctx.uow.manager
        .getRepository(RecordRow)
        .insert({ recid: `ledger:${event.orderId}:${event.amount}` });
    },
    { idempotent: true },
  );
  /** Plain, listed idempotent and sync: it gets a unit of work at run time. */
  const audit = rec.handler<OrderEvent>('orders.audit', async (event, ctx: HandlerContext) => {
    if (ctx.uow === undefined) throw new Error('an entry listed idempotent gets a unit of work');
    await ctx.uow.manager.getRepository(RecordRow).insert({ recid: `audit:${event.orderId}` });
  });
  return handlers()
    .on(OrderPaid, rec.handler('paid.sync'), { sync: true })
    .on(OrderPaid, ledger)
    .on(OrderEvent, rec.handler('orders.sync'), { sync: true })
    .on(OrderEvent, audit, { sync: true, idempotent: true })
    .on(OrderEvent, rec.handler<OrderEvent>('orders.count'))
    .on('SHOP', rec.handler('shop.any'), { sync: true })
    .on(ShopEvent, rec.handler<ShopEvent>('shop.audit'), { sync: true, attempts: 2 })
    .build();
}

for (const setup of setups) {
  describe(`handlers().on(...) on ${setup.name}`, () => {
    async function start(rec: Recorder): Promise<EventBus> {
      const prefix = bed.prefix('i12types');
      const { bus } = await buses.start({
        events: SHOP_EVENTS,
        handlers: shopHandlers(rec),
        ...setup.config(prefix),
        dataSource: setup.source(),
      });
      return bus;
    }

    it('runs parent keys first, sync in order, async and idempotent ones once, writes through ctx.uow', async () => {
      const rec = new Recorder();
      const bus = await start(rec);
      const paid = orderPaid('o1', 25);
      const order = OrderEvent.create({ shopId: 's1', orderId: 'o2' });
      const shop = ShopEvent.create({ shopId: 's1' });
      await bus.publish([paid, order, shop]);
      await bus.whenIdle();

      expect(rec.order(paid.id, SYNC)).toEqual(SYNC);
      expect(rec.order(order.id, SYNC)).toEqual(['shop.any', 'shop.audit', 'orders.sync', 'orders.audit']);
      expect(rec.order(shop.id, SYNC)).toEqual(['shop.any', 'shop.audit']);
      expect(rec.count('orders.ledger')).toBe(1);
      expect(rec.count('orders.ledger', paid.id)).toBe(1);
      expect(rec.count('orders.count')).toBe(2);
      expect(rec.runs).toHaveLength(5 + 1 + 1 + 4 + 1 + 2);

      const rows = await setup
        .source()
        .getRepository(RecordRow)
        .find({ order: { recid: 'ASC' } });
      expect(rows.map((r) => r.recid)).toEqual(['audit:o1', 'audit:o2', 'ledger:o1:25']);
      const handled = await setup.source().getRepository(HandledEventEntity).find();
      expect(handled.map((h) => `${h.handler} ${h.eventId === paid.id ? 'paid' : 'order'}`).sort()).toEqual([
        'orders.audit order',
        'orders.audit paid',
        'orders.ledger paid',
      ]);
    });

    it('a redelivered event skips the idempotent handlers and runs the others again', async () => {
      const rec = new Recorder();
      const bus = await start(rec);
      const paid = orderPaid('o3', 7);
      await bus.publish(paid);
      await bus.whenIdle();
      // Delivered again past the transport's dedupe, as after an outage longer than its window.
      await bus.transport.publish([{ id: paid.id, payload: bus.encode(paid).payload, skipDedupe: true }]);
      await bus.whenIdle();

      expect(rec.count('paid.sync', paid.id)).toBe(2);
      expect(rec.count('orders.ledger', paid.id)).toBe(1);
      expect(rec.count('orders.audit', paid.id)).toBe(1);
      const rows = await setup
        .source()
        .getRepository(RecordRow)
        .find({ order: { recid: 'ASC' } });
      expect(rows.map((r) => r.recid)).toEqual(['audit:o3', 'ledger:o3:7']);
    });
  });
}
