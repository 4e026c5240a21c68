import type { CommitbusConfig } from '../config/config.js';
import { type DeliveryOptions, deliverAtOf } from '../events/delivery-options.js';
import { withTraceWithin } from '../events/envelope-trace.js';
import { EventTooLargeError } from '../events/errors/event-too-large.error.js';
import { InvalidDeliveryOptionsError } from '../events/errors/invalid-delivery-options.error.js';
import type { Event } from '../events/event.js';
import { assertEvent } from '../events/event-check.js';
import type { EventPublisher } from '../events/event-publisher.js';
import type { EventSerializer } from '../events/event-serializer.js';
import { type EventClass, orderingPolicyOf } from '../events/event-type.decorator.js';
import { checkOrderKey } from '../events/order-key.js';
import type { OutgoingEvent } from '../events/outgoing-event.js';
import type { TraceCarrier } from '../events/trace-carrier.js';
import type { DeadLetterSink } from '../handlers/observed-dead-letters.js';
import { OrderingDisabledError } from '../ordering/errors/ordering-disabled.error.js';
import { keepLateEvents } from '../ordering/late-events.js';
import { type EncodedEvent, toOutgoing } from '../ordering/routing.js';
import type { Outbox } from '../outbox/outbox.js';
import { PostCommitEvents, type PostCommitPublisher } from '../outbox/post-commit-events.js';
import type { Logger } from '../support/logger.js';
import { carriedTraceOf } from '../tracing/carried-trace.js';
import { ProducerSpans } from '../tracing/producer-spans.js';
import { withTransactionGate } from '../uow/transaction-gate.js';

/** What publishing needs from the bus. */
export interface PublishingDeps {
  /** Size limit, the after-commit publish's retries, the ordering mode. */
  readonly config: Pick<
    CommitbusConfig,
    'maxEventBytes' | 'publishAttempts' | 'publishBackoffMs' | 'ordering'
  >;
  /** Whether the bus's workers run ordered lanes; without, ordered events are refused. */
  readonly orderedLanes: boolean;
  /** Encodes events. */
  readonly serializer: EventSerializer;
  /** Where events go. */
  readonly publisher: EventPublisher;
  /** Where failures are logged. */
  readonly logger: Logger;
  /** Where ordered events that came late for a position their lane skipped are kept (observed). */
  readonly deadLetters: DeadLetterSink;
  /** The bus's outbox, once it has one. */
  readonly outbox: () => Outbox | undefined;
  /**
   * Told of every publish that went through (direct, after commit, re-driven,
   * relayed); `events` is `undefined` for relayed rows, which were never decoded here.
   */
  readonly afterPublish: (outgoing: readonly OutgoingEvent[], events: readonly Event[] | undefined) => void;
}

/**
 * The publishing side of a bus: encodes events (order key, size limit),
 * publishes them directly or through the outbox, and is the one path every
 * publish takes to the transport, so `onPublished` sees them all.
 */
export class Publishing implements PostCommitPublisher {
  constructor(private readonly deps: PublishingDeps) {}

  /** Where failures are logged. */
  get logger(): Logger {
    return this.deps.logger;
  }

  /** The after-commit publish's retries. */
  get config(): PublishingDeps['config'] {
    return this.deps.config;
  }

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
   * {@link Publishing.encode} again for an event decoded from an envelope (a
   * re-driven `event` or `undecodable` dead letter), with no span of its own:
   * the new envelope carries the trace context the old one carried, so the
   * handlers' spans stay in the trace of the span that first published it.
   */
  reencode(event: Event): EncodedEvent {
    return this.encodeWith(event, undefined, carriedTraceOf(event));
  }

  /** {@link Publishing.encode}, the envelope carrying as much of `trace` (if given) as `maxEventBytes` allows. */
  private encodeWith(
    event: Event,
    delivery: DeliveryOptions | undefined,
    trace?: TraceCarrier,
  ): EncodedEvent {
    const orderKey = this.orderKeyOf(event, delivery);
    if (orderKey !== undefined && !this.deps.orderedLanes) {
      throw new OrderingDisabledError(event.handlingKey, orderKey, this.deps.config.ordering);
    }
    if (orderKey !== undefined && deliverAtOf(delivery) !== undefined) {
      throw new InvalidDeliveryOptionsError(
        `a ${event.handlingKey} event is ordered (key ${JSON.stringify(orderKey)}) and cannot be delayed: it would hold back every later event of its key; publish it without delay or without ordering`,
      );
    }
    const { maxEventBytes } = this.deps.config;
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
  private orderKeyOf(event: Event, delivery: DeliveryOptions | undefined): string | undefined {
    if (delivery?.orderKey !== undefined) return checkOrderKey(delivery.orderKey, event.handlingKey);
    const policy = orderingPolicyOf(event.constructor as EventClass<Event>);
    return policy === undefined ? undefined : checkOrderKey(policy.orderBy(event), event.handlingKey);
  }

  /** A new, empty set of events for one unit of work, kept in the outbox if the bus has one. */
  openEvents(): PostCommitEvents {
    return new PostCommitEvents(this, this.deps.outbox());
  }

  /**
   * Publishes events now, in order, in one round trip (see `EventBus.publish`).
   * Ordered events on a bus with an outbox take their positions in a short
   * transaction, as a unit of work's do. Each event is traced as a `publish`
   * PRODUCER span, from encoding until the transport took it.
   */
  async publish(events: Event | readonly Event[], options?: DeliveryOptions): Promise<void> {
    const list: readonly Event[] = Array.isArray(events) ? events : [events as Event];
    for (const event of list) assertEvent(event, 'bus.publish');
    if (list.length === 0) return;
    const outbox = this.deps.outbox();
    if (outbox !== undefined && list.some((event) => this.orderKeyOf(event, options) !== undefined)) {
      await this.publishThroughOutbox(outbox, list, options);
      return;
    }
    const deliverAt = deliverAtOf(options);
    const spans = new ProducerSpans(list, 'publish');
    try {
      const outgoing = list.map((event, i) => {
        const { id, payload, orderKey } = this.encodeWith(event, options, spans.carrier(i));
        return toOutgoing(id, payload, { orderKey, deliverAt });
      });
      await this.publishEncoded(outgoing, list);
    } catch (error) {
      spans.end(error);
      throw error;
    }
    spans.end();
  }

  private async publishThroughOutbox(
    outbox: Outbox,
    events: readonly Event[],
    options: DeliveryOptions | undefined,
  ): Promise<void> {
    const batch = new PostCommitEvents(this, outbox);
    for (const event of events) batch.add(event, options);
    const { dataSource } = outbox;
    await withTransactionGate(dataSource, () =>
      dataSource.transaction((manager) => batch.beforeCommit(manager)),
    );
    batch.committed();
    await batch.flush();
  }

  /**
   * Publishes events already encoded with {@link Publishing.encode}; `events`
   * are the same, decoded (`undefined` for rows the outbox relay republishes).
   * An ordered event that came for a position its lane skipped in a re-base
   * is kept as a dead letter (`skipped-by-rebase`) before this resolves, so an
   * outbox relay deletes its row only once the letter is stored.
   */
  async publishEncoded(outgoing: readonly OutgoingEvent[], events?: readonly Event[]): Promise<void> {
    const { late } = await this.deps.publisher.publish(outgoing);
    if (late !== undefined && late.length > 0) {
      await keepLateEvents(late, this.deps.deadLetters, this.deps.logger);
    }
    this.deps.afterPublish(outgoing, events);
  }
}
