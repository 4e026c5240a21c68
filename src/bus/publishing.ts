import type { OrderingMode, PublishingOptions } from '../config/option-groups.js';
import { type DeliveryOptions, deliverAtOf } from '../events/delivery-options.js';
import type { Event } from '../events/event.js';
import { assertEvent } from '../events/event-check.js';
import type { EventPublisher } from '../events/event-publisher.js';
import type { EventSerializer } from '../events/event-serializer.js';
import type { AppendResult, OutgoingEvent } from '../events/outgoing-event.js';
import type { TransactionalPublisher } from '../events/transactional-publisher.js';
import type { DeadLetterSink } from '../handlers/observed-dead-letters.js';
import { EventEncoder } from '../ordering/event-encoder.js';
import { keepLateEvents } from '../ordering/late-events.js';
import { toOutgoing } from '../ordering/routing.js';
import type { Outbox } from '../outbox/outbox.js';
import {
  type EventKeeping,
  PostCommitEvents,
  type PostCommitPublisher,
} from '../outbox/post-commit-events.js';
import type { Logger } from '../support/logger.js';
import { ProducerSpans } from '../tracing/producer-spans.js';
import { withTransactionGate } from '../uow/transaction-gate.js';

/** What publishing needs from the bus. */
export interface PublishingDeps {
  /** Size limit and the after-commit publish's retries. */
  readonly publishing: Pick<PublishingOptions, 'maxEventBytes' | 'attempts' | 'backoffMs'>;
  /** The bus's `ordering.mode`. */
  readonly orderingMode: OrderingMode;
  /** Whether the bus's workers run ordered lanes; without, ordered events are refused. */
  readonly orderedLanes: boolean;
  /** Encodes events. */
  readonly serializer: EventSerializer;
  /** Where events go. */
  readonly publisher: EventPublisher;
  /** The transport's append inside a unit of work's transaction, if it has one (`Transport.transactional`). */
  readonly transactional?: TransactionalPublisher;
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
 * The publishing side of a bus: publishes events directly or through the
 * outbox, encoded by its {@link EventEncoder} (order key, size limit), and is the one path every
 * publish takes to the transport, so `onPublished` sees them all.
 */
export class Publishing implements PostCommitPublisher {
  /** The encoding rules every publish goes by (see `ordering/event-encoder.ts`). */
  readonly encoder: EventEncoder;
  /** Publishes under way: a closing bus waits for them before it closes its transport. */
  private readonly underWay = new Set<Promise<unknown>>();

  constructor(private readonly deps: PublishingDeps) {
    this.encoder = new EventEncoder({
      maxEventBytes: deps.publishing.maxEventBytes,
      orderingMode: deps.orderingMode,
      orderedLanes: deps.orderedLanes,
      serializer: deps.serializer,
    });
  }

  /** Where failures are logged. */
  get logger(): Logger {
    return this.deps.logger;
  }

  /** The after-commit publish's retries. */
  get publishing(): PublishingDeps['publishing'] {
    return this.deps.publishing;
  }

  /**
   * A new, empty set of events for one unit of work: appended by the
   * transport in the transaction when it runs on the transport's DataSource,
   * else kept in the outbox if the bus has one.
   */
  openEvents(): PostCommitEvents {
    return new PostCommitEvents(this.encoder, this, this.keeping(this.deps.outbox()));
  }

  private keeping(outbox: Outbox | undefined): EventKeeping {
    return { outbox, transactional: this.deps.transactional };
  }

  /**
   * Publishes events now, in order, in one round trip (see `EventBus.publish`).
   * Ordered events on a bus with an outbox take their positions in a short
   * transaction, as a unit of work's do. Each event is traced as a `publish`
   * PRODUCER span, from encoding until the transport took it.
   */
  publish(events: Event | readonly Event[], options?: DeliveryOptions): Promise<void> {
    return this.tracked(this.publishNow(events, options));
  }

  /**
   * Resolves once no publish is under way (each settled, resolved or
   * rejected): `EventBus.close` waits for this before it closes the
   * transport, so a publish begun before the close is not cut off by it.
   */
  async settled(): Promise<void> {
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }

  /** `work`, counted among the publishes under way until it settles. */
  private tracked<T>(work: Promise<T>): Promise<T> {
    this.underWay.add(work);
    const done = () => this.underWay.delete(work);
    work.then(done, done);
    return work;
  }

  private async publishNow(events: Event | readonly Event[], options?: DeliveryOptions): Promise<void> {
    const list: readonly Event[] = Array.isArray(events) ? events : [events as Event];
    for (const event of list) assertEvent(event, 'bus.publish');
    if (list.length === 0) return;
    const outbox = this.deps.outbox();
    if (outbox !== undefined && list.some((event) => this.encoder.orderKeyOf(event, options) !== undefined)) {
      await this.publishThroughOutbox(outbox, list, options);
      return;
    }
    const deliverAt = deliverAtOf(options);
    const spans = new ProducerSpans(list, 'publish');
    try {
      const outgoing = list.map((event, i) => {
        const { id, payload, orderKey } = this.encoder.encodeWith(event, options, spans.carrier(i));
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
    const batch = new PostCommitEvents(this.encoder, this, this.keeping(outbox));
    for (const event of events) batch.add(event, options);
    const { dataSource } = outbox;
    await withTransactionGate(dataSource, () =>
      dataSource.transaction((manager) => batch.beforeCommit(manager)),
    );
    batch.committed();
    await batch.flush();
  }

  /** Decodes what this process can of `outgoing`; a relayed row of a class it does not know is left out. */
  decodeAll(outgoing: readonly OutgoingEvent[]): Event[] {
    return outgoing.flatMap(({ payload }) => {
      try {
        return [this.deps.serializer.deserialize(payload)];
      } catch {
        return [];
      }
    });
  }

  /**
   * Publishes events already encoded (`EventEncoder.encode`); `events`
   * are the same, decoded (`undefined` for rows the outbox relay republishes).
   * An ordered event that came for a position its lane skipped in a re-base
   * is kept as a dead letter (`skipped-by-rebase`) before this resolves, so an
   * outbox relay deletes its row only once the letter is stored.
   */
  publishEncoded(outgoing: readonly OutgoingEvent[], events?: readonly Event[]): Promise<void> {
    return this.tracked(
      (async () => this.published(outgoing, events, await this.deps.publisher.publish(outgoing)))(),
    );
  }

  /**
   * What follows every publish, once the transport took the events (`result`
   * is what it returned), by `publishEncoded` or inside a unit of work's
   * committed transaction: late ordered events kept as dead letters, then
   * `afterPublish` (`onPublished`, the metrics).
   */
  async published(
    outgoing: readonly OutgoingEvent[],
    events: readonly Event[] | undefined,
    result: AppendResult,
  ): Promise<void> {
    const { late } = result;
    if (late !== undefined && late.length > 0) {
      await keepLateEvents(late, this.deps.deadLetters, this.deps.logger);
    }
    this.deps.afterPublish(outgoing, events);
  }
}
