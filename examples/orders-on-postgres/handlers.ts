import type { DataSource } from 'typeorm';
import { defineHandler, type EventHandlersConfig, handlers } from '../../src/index.js';
import { Order } from './order.entity.js';
import { OrderNotification } from './order-notification.entity.js';
import { OrderPlaced } from './order-placed.event.js';

/** The example's `EVENT_HANDLERS`, shared by the publisher and the worker. */
export function orderHandlers(dataSource: DataSource): EventHandlersConfig {
  /** Sync (in the drain): marks the order confirmed. Running it twice changes nothing. */
  const confirm = defineHandler('orders.confirm', async (event: OrderPlaced) => {
    await dataSource.getRepository(Order).update({ id: event.orderId }, { status: 'confirmed' });
  });

  /**
   * Async and idempotent: tells the customer, once. Its row commits with
   * commitbus's completion record (through `ctx.uow`), so an event delivered
   * again after a crash does not notify twice.
   */
  const notify = defineHandler(
    'orders.notify',
    async (event: OrderPlaced, ctx) => {
      await ctx.uow.manager.getRepository(OrderNotification).insert({
        orderId: event.orderId,
        message: `Your order ${event.orderId} (${(event.totalCents / 100).toFixed(2)}) is confirmed`,
      });
    },
    { idempotent: true },
  );

  return handlers().on(OrderPlaced, confirm, { sync: true }).on(OrderPlaced, notify).build();
}
