import { Event, EventType } from '../../src/index.js';

/** An order was placed: published only once the unit of work that placed it committed. */
@EventType('ORDER.PLACE')
export class OrderPlaced extends Event {
  orderId!: string;
  totalCents!: number;
}
