import { Event, EventType } from '../../src/index.js';

/** Key `SHOP`: the base of the shop's events (the typed-handler tests' hierarchy). */
@EventType('SHOP')
export class ShopEvent extends Event {
  shopId!: string;
}

/** Key `SHOP.ORDER`. */
@EventType('SHOP.ORDER')
export class OrderEvent extends ShopEvent {
  orderId!: string;
}

/** Key `SHOP.ORDER.PAID`: three levels, for parent-first dispatch. */
@EventType('SHOP.ORDER.PAID')
export class OrderPaid extends OrderEvent {
  amount!: number;
}

/** Key `USER.CREATED`: unrelated to the shop's events. */
@EventType('USER.CREATED')
export class UserCreated extends Event {
  email!: string;
}

/** Not decorated: it has no handling key. */
export class Undecorated extends Event {
  note!: string;
}

/** Every registered class of the hierarchy. */
export const SHOP_EVENTS = [ShopEvent, OrderEvent, OrderPaid, UserCreated];

/** A paid order of `amount`. */
export function orderPaid(orderId: string, amount = 10): OrderPaid {
  return OrderPaid.create({ shopId: 's1', orderId, amount });
}
