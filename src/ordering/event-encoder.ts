import type { OrderingMode } from '../config/option-groups.js';
import { type DeliveryOptions, deliverAtOf } from '../events/delivery-options.js';
import { withTraceWithin } from '../events/envelope-trace.js';
import { EventTooLargeError } from '../events/errors/event-too-large.error.js';
import { InvalidDeliveryOptionsError } from '../events/errors/invalid-delivery-options.error.js';
import type { Event } from '../events/event.js';
import { assertEvent } from '../events/event-check.js';
import type { EventSerializer } from '../events/event-serializer.js';
import { type EventClass, orderingPolicyOf } from '../events/event-type.decorator.js';
import { checkOrderKey } from '../events/order-key.js';
import type { TraceCarrier } from '../events/trace-carrier.js';
import { carriedTraceOf } from '../tracing/carried-trace.js';
import { ProducerSpans } from '../tracing/producer-spans.js';
import { OrderingDisabledError } from './errors/ordering-disabled.error.js';
import type { EncodedEvent } from './routing.js';

/** What encoding needs: the size limit, the ordering mode, whether lanes run, the serializer. */
export interface EventEncoderDeps {
  /** The size limit of an encoded event, its envelope included (`publishing.maxEventBytes`). */
  readonly maxEventBytes: number;
  /** The bus's `ordering.mode` (named in {@link OrderingDisabledError}). */
  readonly orderingMode: OrderingMode;
  /** Whether the bus's workers run ordered lanes; without, ordered events are refused. */
  readonly orderedLanes: boolean;
  /** Serializes events. */
  readonly serializer: EventSerializer;
}

/**
 * The encoding rules of the publish path: what an event becomes on the wire
 * (its serialized envelope, with its trace as far as it fits, and its order
 * key if it is ordered). A unit of work's events (`outbox/PostCommitEvents`)
 * and the bus's publishing (`bus/publishing.ts`) both encode through it.
 */
export class EventEncoder {
  constructor(private readonly deps: EventEncoderDeps) {}

  /**
   * Serializes an event for the transport, with its order key if it is
   * ordered, refusing one bigger than `maxEventBytes` without its trace
   * ({@link EventTooLargeError}), of an unregistered class, with an invalid
   * order key (`InvalidOrderKeyError`), ordered on a bus that runs no ordered
   * lanes ({@link OrderingDisabledError}), or ordered and delayed.
   * It is traced as a `create` PRODUCER span whose context the envelope
   * carries (see `tracing/producer-spans.ts`): a unit of work encodes its
   * events when they are registered, in the context active there. The trace
   * never makes the event too large: when the envelope would exceed
   * `maxEventBytes` with it, its `tracestate`, then the whole trace, is left out.
   */
  encode(event: Event, delivery?: DeliveryOptions): EncodedEvent {
    assertEvent(event, 'a unit of work');
    const spans = new ProducerSpans([event], 'create');
    try {
      const encoded = this.encodeWith(event, delivery, spans.carrier(0));
      spans.end();
      return encoded;
    } catch (error) {
      spans.end(error);
      throw error;
    }
  }

  /**
   * {@link EventEncoder.encode} again for an event decoded from an envelope (a
   * re-driven `event` or `undecodable` dead letter), with no span of its own:
   * the new envelope carries the trace context the old one carried, so the
   * handlers' spans stay in the trace of the span that first published it.
   */
  reencode(event: Event): EncodedEvent {
    return this.encodeWith(event, undefined, carriedTraceOf(event));
  }

  /**
   * {@link EventEncoder.encode} without a span of its own, the envelope
   * carrying as much of `trace` (if given) as `maxEventBytes` allows.
   */
  encodeWith(event: Event, delivery: DeliveryOptions | undefined, trace?: TraceCarrier): EncodedEvent {
    const orderKey = this.orderKeyOf(event, delivery);
    if (orderKey !== undefined && !this.deps.orderedLanes) {
      throw new OrderingDisabledError(event.handlingKey, orderKey, this.deps.orderingMode);
    }
    if (orderKey !== undefined && deliverAtOf(delivery) !== undefined) {
      throw new InvalidDeliveryOptionsError(
        `a ${event.handlingKey} event is ordered (key ${JSON.stringify(orderKey)}) and cannot be delayed: it would hold back every later event of its key; publish it without delay or without ordering`,
      );
    }
    const { maxEventBytes } = this.deps;
    const serialized = this.deps.serializer.serialize(event);
    const bytes = Buffer.byteLength(serialized.payload);
    if (bytes > maxEventBytes) {
      throw new EventTooLargeError(serialized.key, serialized.id, bytes, maxEventBytes);
    }
    const traced = {
      ...serialized,
      payload: withTraceWithin(serialized.payload, bytes, trace, maxEventBytes),
    };
    return orderKey === undefined ? traced : { ...traced, orderKey };
  }

  /** The order key of an event: `delivery.orderKey`, else its class's `orderBy`, else none. */
  orderKeyOf(event: Event, delivery: DeliveryOptions | undefined): string | undefined {
    if (delivery?.orderKey !== undefined) return checkOrderKey(delivery.orderKey, event.handlingKey);
    const policy = orderingPolicyOf(event.constructor as EventClass<Event>);
    return policy === undefined ? undefined : checkOrderKey(policy.orderBy(event), event.handlingKey);
  }
}
