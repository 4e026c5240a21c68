import type { OutgoingEvent } from '../events/outgoing-event.js';
import type { SerializedEvent } from '../events/serialized-event.js';
import { syncLane } from './lane.js';

/**
 * Where one serialized event goes. An ordered event has an order key (and,
 * once a transaction reserved it, its position in that key's sequence); an
 * unordered one may have a delivery time. Never both: ordered events cannot
 * be delayed.
 */
export interface Routing {
  /** An ordered event's order key. */
  readonly orderKey?: string;
  /** Its position in the order key's sequence, when a transaction reserved one; else the lane gives the next. */
  readonly orderPosition?: number;
  /** When an unordered event may be handled (epoch ms); absent: at once. */
  readonly deliverAt?: number;
}

/** An event serialized by the bus, with its order key if it is ordered. */
export interface EncodedEvent extends SerializedEvent {
  /** The order key of an ordered event. */
  readonly orderKey?: string;
}

/**
 * The one mapping from an event to what a transport takes: an ordered event
 * goes to its key's sync lane (at its position, if it has one), any other to
 * the log (at its delivery time, if it has one).
 */
export function toOutgoing(id: string, payload: string, routing: Routing): OutgoingEvent {
  const { orderKey, orderPosition, deliverAt } = routing;
  if (orderKey !== undefined) {
    const lane = syncLane(orderKey);
    return orderPosition === undefined
      ? { id, payload, lane }
      : { id, payload, lane, position: orderPosition };
  }
  return deliverAt === undefined ? { id, payload } : { id, payload, deliverAt };
}
