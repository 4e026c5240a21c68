import { randomBytes } from 'node:crypto';
import type { SubscriberRecord } from '../../router/subscriber.js';
import { MemorySortedSet } from './memory.sorted-set.js';
import { Wakeups } from './wakeups.js';

/** Wake-ups kept for workers not waiting yet, as the Redis `wake` list is trimmed. */
const MAX_WAKES = 16;

/** A subscriber as the memory adapters keep it. */
export interface MemorySubscriber {
  record: Omit<SubscriberRecord, 'topics'>;
  readonly topics: Set<string>;
  sent: number;
  health: number;
  /** The last failed delivery's error and time, until one is delivered. */
  lastError: { message: string; at: number } | null;
  /** Its early batch, the one new events join. */
  early: string | undefined;
  /** Its batches, in creation order. */
  readonly batches: Map<string, MemoryBatch>;
  /** Its ready batch ids by due time. */
  readonly ready: MemorySortedSet;
  /** Its batches out (pending). */
  inflight: number;
  /** The in-flight cap the last take was given (none before the first). */
  cap: number | undefined;
}

/** A batch as the memory adapters keep it; `at` is its deadline (early), due time (ready) or lease end (pending). */
export interface MemoryBatch {
  readonly id: string;
  readonly subscriber: string;
  readonly seq: number;
  readonly createdAt: number;
  attempts: number;
  lastError: string | undefined;
  readonly events: string[];
  state: 'early' | 'ready' | 'pending';
  at: number;
  worker: string | undefined;
}

/**
 * What the memory router adapters share: the catalogue and the batches,
 * kept as the Redis adapters keep them (see `router-ingest.lua`), so both
 * behave alike. Batches are kept in creation order, each subscriber's ready
 * ones by due time, and the subscribers that may send one in {@link due}
 * (see `includes/router-line-up.lua`).
 */
export class MemoryRouterState {
  /** Topic name to its publisher (`null` while none) and events published. */
  readonly topics = new Map<string, { publisher: string | null; events: number }>();
  /** Subscribers by name. */
  readonly subscribers = new Map<string, MemorySubscriber>();
  /** Every batch, in creation order. */
  readonly batches = new Map<string, MemoryBatch>();
  /** The subscribers in line for a take, by the due time of the batch each would send next. */
  readonly due = new MemorySortedSet();
  private readonly wakeups = new Wakeups();
  private wakes = 0;
  private seq = 0;

  /** A new subscriber, with no batches. */
  addSubscriber(name: string, record: MemorySubscriber['record'], topics: Iterable<string>): void {
    this.subscribers.set(name, {
      record,
      topics: new Set(topics),
      sent: 0,
      health: 100,
      lastError: null,
      early: undefined,
      batches: new Map(),
      ready: new MemorySortedSet(),
      inflight: 0,
      cap: undefined,
    });
  }

  /** Removes a subscriber with its batches; `false` when there was none. */
  removeSubscriber(name: string): boolean {
    const sub = this.subscribers.get(name);
    if (sub === undefined) return false;
    for (const batch of sub.batches.values()) this.batches.delete(batch.id);
    this.subscribers.delete(name);
    this.due.delete(name);
    return true;
  }

  /** A new batch for `subscriber`, early (first in line for its new events) or ready. */
  newBatch(subscriber: string, now: number, state: 'early' | 'ready', at: number): MemoryBatch {
    this.seq += 1;
    const id = `${String(this.seq).padStart(12, '0')}-${randomBytes(6).toString('hex')}`;
    const batch: MemoryBatch = {
      id,
      subscriber,
      seq: this.seq,
      createdAt: now,
      attempts: 0,
      lastError: undefined,
      events: [],
      state,
      at,
      worker: undefined,
    };
    this.batches.set(id, batch);
    const sub = this.subscribers.get(subscriber);
    sub?.batches.set(id, batch);
    if (state === 'ready') this.makeReady(batch, at);
    return batch;
  }

  /**
   * Makes a batch ready, due at `due` (an early one, no longer its
   * subscriber's early one; a pending one, no longer out), and lines its
   * subscriber up again.
   */
  makeReady(batch: MemoryBatch, due: number): void {
    const sub = this.subscribers.get(batch.subscriber);
    if (batch.state === 'pending' && sub !== undefined) sub.inflight -= 1;
    batch.state = 'ready';
    batch.at = due;
    batch.worker = undefined;
    if (sub === undefined) return;
    if (sub.early === batch.id) sub.early = undefined;
    sub.ready.add(batch.id, due);
    this.lineUp(batch.subscriber);
  }

  /** Hands a ready batch to `worker` until `leaseEnd`, and lines its subscriber up again. */
  lease(batch: MemoryBatch, worker: string, leaseEnd: number): void {
    const sub = this.subscribers.get(batch.subscriber);
    batch.state = 'pending';
    batch.at = leaseEnd;
    batch.worker = worker;
    if (sub === undefined) return;
    sub.ready.delete(batch.id);
    sub.inflight += 1;
    this.lineUp(batch.subscriber);
  }

  /** Removes a batch and every reference to it, and lines its subscriber up again. */
  drop(batch: MemoryBatch): void {
    this.batches.delete(batch.id);
    const sub = this.subscribers.get(batch.subscriber);
    if (sub === undefined) return;
    if (sub.early === batch.id) sub.early = undefined;
    if (batch.state === 'pending') sub.inflight -= 1;
    sub.batches.delete(batch.id);
    sub.ready.delete(batch.id);
    this.lineUp(batch.subscriber);
  }

  /**
   * Puts a subscriber in {@link due}, scored by the due time of the batch it
   * would send next, while it is not paused, has fewer batches out than its
   * cap (1 when ordered) and has a ready batch it may send (its earliest or,
   * when ordered, its oldest batch once ready); else takes it out.
   */
  lineUp(name: string): void {
    const sub = this.subscribers.get(name);
    let at: number | undefined;
    if (sub !== undefined && !sub.record.paused) {
      const cap = sub.record.ordered ? 1 : (sub.cap ?? sub.inflight + 1);
      if (sub.inflight < cap) {
        if (sub.record.ordered) {
          const head = this.firstBatchOf(sub);
          at = head === undefined ? undefined : sub.ready.score(head.id);
        } else at = sub.ready.first()?.score;
      }
    }
    if (at === undefined) this.due.delete(name);
    else this.due.add(name, at);
  }

  /** Signals that a batch may have become ready: wakes a waiting worker, or the next to wait. */
  wake(times = 1): void {
    this.wakes = Math.min(MAX_WAKES, this.wakes + times);
    this.wakeups.wakeAll();
  }

  /** Resolves at once when a wake-up is waiting (using it), else on the next one or after `ms`. */
  async waitForWake(ms: number): Promise<void> {
    if (this.wakes > 0) {
      this.wakes -= 1;
      return;
    }
    if (ms <= 0) return;
    await this.wakeups.wait(ms);
    if (this.wakes > 0) this.wakes -= 1;
  }

  /** The oldest batch of `subscriber` (the first in creation order), if any. */
  firstBatchOf(subscriber: MemorySubscriber): MemoryBatch | undefined {
    return subscriber.batches.values().next().value;
  }
}
