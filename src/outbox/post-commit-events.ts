import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from 'typeorm';
import type { PublishingOptions } from '../config/option-groups.js';
import { type DeliveryOptions, deliverAtOf } from '../events/delivery-options.js';
import type { Event } from '../events/event.js';
import type { OutgoingEvent } from '../events/outgoing-event.js';
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

interface Registered {
  readonly event: Event;
  readonly payload: string;
  readonly delivery: DeliveryOptions | undefined;
  readonly orderKey: string | undefined;
}

/**
 * The events registered in one unit of work. With an outbox they are written
 * to it just before commit, in the same transaction; the first `flush` after
 * commit publishes all of them, in registration order, in one round trip, and
 * later calls share its outcome.
 */
export class PostCommitEvents implements UnitOfWorkEvents {
  private readonly registered: Registered[] = [];
  private readonly ids = new Set<string>();
  private kept: Kept[] | undefined;
  private committedAt: number | undefined;
  private flushing: Promise<void> | undefined;

  /**
   * @param encoder - encodes each event as it is added (the publish path's rules).
   * @param bus - where the events are published.
   * @param outbox - where they are kept until published; none: publish with retries, no safety net.
   */
  constructor(
    private readonly encoder: EventEncoder,
    private readonly bus: PostCommitPublisher,
    private readonly outbox?: Outbox,
  ) {}

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
   * writes the events to the outbox, in `manager`'s transaction. A delayed
   * row is due `delay` after now: only a relay, republishing what a dead
   * publisher left, goes by it; the publish after commit counts from the
   * commit (see {@link PostCommitEvents.committed}).
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
    if (this.outbox !== undefined)
      await this.outbox.write(
        manager,
        kept.map((k) => k.entry),
      );
  }

  /** @internal The transaction committed: a delay counts from now, as `SendEventOp` promises. */
  committed(): void {
    this.committedAt ??= Date.now();
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
   * Publishes every event once. With an outbox, one attempt: if it fails the
   * events stay in the outbox for a relay, and this resolves. Without, it
   * retries with backoff and throws {@link PublishAfterCommitError}.
   */
  flush(): Promise<void> {
    this.flushing ??=
      this.outbox === undefined ? this.publishWithRetry() : this.publishFromOutbox(this.outbox);
    return this.flushing;
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
