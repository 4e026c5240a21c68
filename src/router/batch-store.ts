import type { Batch } from './batch.js';
import type { SubscriberQueueStats } from './subscriber.js';
import type { IngestResult } from './topic.js';

/** Where a taken batch's lease stands. */
export interface TakeOptions {
  /** The worker taking, for its lease. */
  readonly worker: string;
  /** At most this many batches. */
  readonly limit: number;
  /** Now, epoch ms. */
  readonly now: number;
  /** The lease: a batch not acked or nacked by `now + leaseMs` is recovered by {@link BatchStore.recoverExpired}. */
  readonly leaseMs: number;
  /** A subscriber never has more than this many batches out at once (ordered ones: 1). */
  readonly maxInFlightPerSubscriber: number;
}

/** Batches dropped to free memory, per subscriber. */
export interface DroppedBatches {
  /** Batches dropped. */
  readonly batches: number;
  /** Events in them, per subscriber. */
  readonly eventsBySubscriber: Readonly<Record<string, number>>;
}

/**
 * The port of the delivery engine's queue, after seed 004: each subscriber
 * has at most one *early* batch that new events join; it becomes *ready*
 * when it holds `maxEvents` or its deadline (first event + `timeoutMs`)
 * passes; a worker takes ready batches under a lease (*pending*); a delivered
 * batch is acked and gone, a failed one nacked back to ready with a retry
 * time. All of one call is atomic.
 */
export interface BatchStore {
  /**
   * Publishes events to a topic: claims the topic for `publisher` when it has
   * no publisher yet (creating it when missing), counts the events, and adds
   * each to the early batch of every subscriber of the topic, making full
   * batches ready. Does nothing when another client owns the topic.
   */
  ingest(publisher: string, topic: string, events: readonly string[], now: number): Promise<IngestResult>;
  /** Makes every early batch whose deadline is at or before `now` ready; returns how many. */
  promoteDue(now: number): Promise<number>;
  /**
   * Takes ready batches due at or before `now`, oldest due first, skipping
   * paused subscribers and those with `maxInFlightPerSubscriber` batches out
   * (1 for ordered ones, whose batches go out in the order they were made).
   * However many batches the skipped ones hold, they neither hold back the
   * others' nor slow the take.
   */
  take(options: TakeOptions): Promise<Batch[]>;
  /** Resolves when a batch may have become ready, or after `timeoutMs`. */
  waitForWork(timeoutMs: number): Promise<void>;
  /** A delivered batch: removes it, counts its events as sent, heals its subscriber (+1). `false` when `worker` no longer held it. */
  ack(worker: string, batchId: string): Promise<boolean>;
  /**
   * A failed delivery: back to ready, due at `retryAt`, with one more attempt
   * and the error kept (on the batch, and as its subscriber's `lastError`,
   * which the next delivered batch clears); damages its subscriber (-2). `false` when `worker`
   * no longer held it.
   */
  nack(worker: string, batchId: string, retryAt: number, error: string): Promise<boolean>;
  /** Removes a batch `worker` holds without delivering it (it was dead-lettered); `false` when it no longer held it. */
  discard(worker: string, batchId: string): Promise<boolean>;
  /** Puts events back for a subscriber as a new ready batch (a re-driven dead letter). */
  requeue(subscriber: string, events: readonly string[], now: number): Promise<void>;
  /**
   * Batches whose lease ended by `now` (their worker died): back to ready,
   * due at `retryAt`, one more attempt. Returns how many.
   */
  recoverExpired(now: number, retryAt: number): Promise<number>;
  /** Drops up to `limit` of the oldest batches not being delivered. */
  dropOldest(limit: number): Promise<DroppedBatches>;
  /** Bytes used by the store (Redis `used_memory`: the whole server's). */
  memoryUsed(): Promise<number>;
  /** Queue figures per subscriber. */
  stats(): Promise<Record<string, SubscriberQueueStats>>;
  /**
   * Batches the workers will have to deliver by `by` (epoch ms): of each
   * subscriber not paused, its ready batches due by then and its early batch
   * when its deadline falls by then; not those being delivered. What
   * `GET /pulse/scaling` advises on, as Routemaster counts its due jobs.
   */
  countDue(by: number): Promise<number>;
}
