/**
 * Handlers listed through `handlers().on(...)` run as the map form's do, on
 * the memory transport (SQLite) and on Redis (PostgreSQL): parent key first
 * (`SHOP`, `SHOP.ORDER`, `SHOP.ORDER.PAID`, whatever the order of the `on`
 * calls), sync ones inline in order, async ones once each, and idempotent
 * ones (defined so, or listed so) with a unit of work whose writes commit
 * with their record.
 */
import { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HandledEventEntity } from '../../src/idempotency/handled-event.entity.js';
import {
  COMMITBUS_ENTITIES,
  type CommitbusConfig,
  defineHandler,
  type EventBus,
  type HandlerContext,
  handlers,
} from '../../src/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { Recorder } from '../helpers/recorder.js';
import { RecordRow } from '../helpers/records.js';
import { deleteKeys, openRedis, testPrefix } from '../helpers/redis.js';
import { OrderEvent, OrderPaid, orderPaid, SHOP_EVENTS, ShopEvent } from '../helpers/shop-events.js';

const SCHEMA = 'commitbus_test_i12types';
const redis = openRedis();
const buses = new Buses();
let pgSource: DataSource;
let sqliteSource: DataSource;
const prefixes: string[] = [];

beforeAll(async () => {
  pgSource = await openSchema(SCHEMA, [RecordRow]);
  sqliteSource = await new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [RecordRow, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
});
beforeEach(async () => {
  for (const ds of [pgSource, sqliteSource]) {
    await ds.getRepository(RecordRow).clear();
    await ds.getRepository(HandledEventEntity).clear();
  }
});
afterEach(() => buses.closeAll());
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  await redis.quit();
  await closeSchema(pgSource);
  await sqliteSource.destroy();
});

const setups: { name: string; source: () => DataSource; config: (p: string) => Partial<CommitbusConfig> }[] =
  [
    {
      name: 'memory + SQLite',
      source: () => sqliteSource,
      config: () => fastConfig({ transport: 'memory' }),
    },
    {
      name: 'bullmq + PostgreSQL',
      source: () => pgSource,
      config: (prefix) => fastConfig({ transport: 'bullmq', prefix }),
    },
  ];

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
      const prefix = testPrefix('i12types');
      prefixes.push(prefix);
      const { bus } = await buses.start({
        events: SHOP_EVENTS,
        handlers: shopHandlers(rec),
        config: setup.config(prefix),
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
