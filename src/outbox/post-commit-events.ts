import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from 'typeorm';
import type { PublishingOptions } from '../config/option-groups.js';
import { type DeliveryOptions, deliverAtOf } from '../events/delivery-options.js';
import type { Event } from '../events/event.js';
import type { AppendResult, OutgoingEvent } from '../events/outgoing-event.js';
import type { TransactionalPublisher } from '../events/transactional-publisher.js';
import type { EventEncoder } from '../ordering/event-encoder.js';
import { toOutgoing } from '../ordering/routing.js';
import type { Logger } from '../support/logger.js';
import { describeError } from '../support/logger.js';
import { mayRetry, retryDelay } from '../support/retry-policy.js';
import { PublishAfterCommitError } from '../uow/errors/publish-after-commit.error.js';
import { UnitOfWorkClosedError } from '../uow/errors/unit-of-work-closed.error.js';
import type { UnitOfWorkEvents } from '../uow/unit-of-work-bus.js';
import type { Outbox, OutboxEntry } from './outbox.js';

/**
 * What a unit of work's events need from the bus once they are encoded
 * (encoding is not the bus's: {@link EventEncoder}, below this room).
 */
export interface PostCommitPublisher {
  /** Publishes encoded events; `events` are the same, decoded, for `onPublished`. */
  publishEncoded(outgoing: readonly OutgoingEvent[], events: readonly Event[]): Promise<void>;
  /**
   * Does what follows a publish for events the transport appended inside the
   * committed transaction (`result` is what it returned): keeps late ordered
   * events as dead letters, tells `onPublished` and the metrics.
   */
  published(
    outgoing: readonly OutgoingEvent[],
    events: readonly Event[],
    result: AppendResult,
  ): Promise<void>;
  /** Where failures are logged. */
  readonly logger: Logger;
  /** Publish attempts and first backoff without an outbox (the bus's `publishing` options). */
  readonly publishing: Pick<PublishingOptions, 'attempts' | 'backoffMs'>;
}

/** An event kept in the transaction, with how long after the commit it is due. */
interface Kept {
  readonly entry: OutboxEntry;
  readonly delivery: DeliveryOptions | undefined;
}

/**
 * Where a unit of work's events are kept between its transaction and their
 * publish: the outbox, or the transport's own tables when the transaction
 * runs on the transport's DataSource (then no outbox row is written).
 */
export interface EventKeeping {
  /** The bus's outbox, if it has one: its rows, and the positions of ordered events. */
  readonly outbox?: Outbox;
  /** The transport's append inside a transaction, if it has one (`Transport.transactional`). */
  readonly transactional?: TransactionalPublisher;
}

/** Events the transport appended in the transaction, with what it did, for after the commit. */
interface Appended {
  readonly publisher: TransactionalPublisher;
  readonly outgoing: readonly OutgoingEvent[];
  readonly result: AppendResult;
}

interface Registered {
  readonly event: Event;
  readonly payload: string;
  readonly delivery: DeliveryOptions | undefined;
  readonly orderKey: string | undefined;
}

/**
 * The events registered in one unit of work. On a transaction of the
 * transport's own DataSource (`Transport.transactional`) the transport
 * appends them just before commit, in the same transaction, and the first
 * `flush` after commit only does what follows a publish (`onPublished`,
 * metrics, late ordered events). Elsewhere, with an outbox, they are written
 * to it just before commit, in the same transaction; the first `flush` after
 * commit publishes all of them, in registration order, in one round trip.
 * Later calls of `flush` share the first call's outcome.
 */
export class PostCommitEvents implements UnitOfWorkEvents {
  private readonly registered: Registered[] = [];
  private readonly ids = new Set<string>();
  private kept: Kept[] | undefined;
  private committedAt: number | undefined;
  private flushing: Promise<void> | undefined;
  private appended: Appended | undefined;
  private readonly outbox: Outbox | undefined;
  private readonly transactional: TransactionalPublisher | undefined;

  /**
   * @param encoder - encodes each event as it is added (the publish path's rules).
   * @param bus - where the events are published.
   * @param keeping - where they are kept until published; neither an outbox nor
   *   the transaction's own transport: published after commit with retries, no safety net.
   */
  constructor(
    private readonly encoder: EventEncoder,
    private readonly bus: PostCommitPublisher,
    keeping: EventKeeping = {},
  ) {
    this.outbox = keeping.outbox;
    this.transactional = keeping.transactional;
  }

  /**
   * Adds an event. It is serialized now, so an unregistered class or an event
   * over `maxEventBytes` fails at registration; bad delivery options too. An
   * event whose id is already registered is ignored.
   */
  add(event: Event, delivery?: DeliveryOptions): void {
    if (this.kept !== undefined) {
      throw new UnitOfWorkClosedError('committed');
    }
    deliverAtOf(delivery);
    // The same event registered twice (say, by nested service calls) goes out once.
    if (this.ids.has(event.id)) return;
    const { payload, orderKey } = this.encoder.encode(event, delivery);
    this.ids.add(event.id);
    this.registered.push({ event, payload, delivery, orderKey });
  }

  /** The events registered so far. */
  list(): readonly Event[] {
    return this.registered.map((r) => r.event);
  }

  /**
   * @internal Gives ordered events their positions (with an outbox) and
   * keeps the events, in `manager`'s transaction: appended by the transport
   * when the transaction runs on its DataSource (a delayed event is then due
   * `delay` after now, as its row is written just before COMMIT), else
   * written to the outbox. A delayed outbox row is due `delay` after now:
   * only a relay, republishing what a dead publisher left, goes by it; the
   * publish after commit counts from the commit (see
   * {@link PostCommitEvents.committed}).
   */
  async beforeCommit(manager: EntityManager): Promise<void> {
    const now = Date.now();
    const next = await this.reservePositions(manager);
    const kept = this.registered.map(({ event, payload, delivery, orderKey }): Kept => {
      const entry = { id: event.id, handlingKey: event.handlingKey, payload };
      if (orderKey === undefined)
        return { entry: { ...entry, deliverAt: deliverAtOf(delivery, now) }, delivery };
      const orderPosition = next?.get(orderKey);
      if (orderPosition !== undefined) next?.set(orderKey, orderPosition + 1);
      return { entry: { ...entry, orderKey, orderPosition }, delivery };
    });
    this.kept = kept;
    if (kept.length === 0) return;
    const transactional = this.transactional;
    // The same DataSource object: its transactions are the transport's own.
    if (transactional !== undefined && manager.connection === transactional.dataSource) {
      const outgoing = kept.map(({ entry }) => toOutgoing(entry.id, entry.payload, entry));
      const result = await transactional.publishIn(manager, outgoing);
      this.appended = { publisher: transactional, outgoing, result };
      return;
    }
    if (this.outbox !== undefined)
      await this.outbox.write(
        manager,
        kept.map((k) => k.entry),
      );
  }

  /**
   * @internal The transaction committed: a delay counts from now, as
   * `SendEventOp` promises; events the transport appended in it are
   * there now, and this process's workers are woken.
   */
  committed(): void {
    if (this.committedAt !== undefined) return;
    this.committedAt = Date.now();
    this.appended?.publisher.committed(this.appended.result);
  }

  /** What the transport takes, delivery times counted from the commit. */
  private outgoing(): OutgoingEvent[] {
    const committedAt = this.committedAt ?? Date.now();
    return (this.kept ?? []).map(({ entry, delivery }) => {
      const routing =
        entry.orderKey === undefined ? { ...entry, deliverAt: deliverAtOf(delivery, committedAt) } : entry;
      return toOutgoing(entry.id, entry.payload, routing);
    });
  }

  /**
   * With an outbox, ordered events take their positions in this transaction
   * (commit order, never lost); without one, the transport gives them the
   * next position when they are published.
   */
  private async reservePositions(manager: EntityManager): Promise<Map<string, number> | undefined> {
    if (this.outbox === undefined) return undefined;
    const counts = new Map<string, number>();
    for (const { orderKey } of this.registered) {
      if (orderKey !== undefined) counts.set(orderKey, (counts.get(orderKey) ?? 0) + 1);
    }
    if (counts.size === 0) return undefined;
    return this.outbox.positions.reserve(manager, counts);
  }

  /**
   * Publishes every event once. Appended by the transport in the
   * transaction: nothing to send, only what follows a publish. With an
   * outbox, one attempt: if it fails the events stay in the outbox for a
   * relay, and this resolves. Without, it retries with backoff and throws
   * {@link PublishAfterCommitError}.
   */
  flush(): Promise<void> {
    this.flushing ??= this.startFlush();
    return this.flushing;
  }

  private startFlush(): Promise<void> {
    if (this.appended !== undefined) return this.publishedInTransaction(this.appended);
    return this.outbox === undefined ? this.publishWithRetry() : this.publishFromOutbox(this.outbox);
  }

  private async publishedInTransaction(appended: Appended): Promise<void> {
    // A unit of work told of its commit already; anything else that commits and flushes wakes here.
    this.committed();
    await this.bus.published(appended.outgoing, this.events(), appended.result);
  }

  private events(): readonly Event[] {
    return this.registered.map((r) => r.event);
  }

  private async publishFromOutbox(outbox: Outbox): Promise<void> {
    const outgoing = this.outgoing();
    if (outgoing.length === 0) return;
    try {
      await this.bus.publishEncoded(outgoing, this.events());
    } catch (error) {
      this.bus.logger.warn(
        { events: outgoing.map((e) => e.id), error: describeError(error).message },
        `publishing ${outgoing.length} committed event(s) failed; they stay in the outbox and a relay publishes them once the transport is back`,
      );
      return;
    }
    outbox.forget(outgoing.map((e) => e.id));
  }

  private async publishWithRetry(): Promise<void> {
    const outgoing = this.outgoing();
    if (outgoing.length === 0) return;
    const { attempts, backoffMs } = this.bus.publishing;
    const policy = { type: 'exponential', delayMs: backoffMs, attempts } as const;
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await this.bus.publishEncoded(outgoing, this.events());
        return;
      } catch (error) {
        lastError = error;
        if (mayRetry(policy, attempt)) await sleep(retryDelay(policy, attempt));
      }
    }
    throw new PublishAfterCommitError(
      this.registered.map(({ event }) => ({ id: event.id, key: event.handlingKey })),
      attempts,
      { cause: lastError },
    );
  }
}
