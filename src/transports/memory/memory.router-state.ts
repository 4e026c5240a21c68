import { randomBytes } from 'node:crypto';
import type { SubscriberRecord } from '../../router/subscriber.js';
import { Wakeups } from './wakeups.js';

/** Wake-ups kept for workers not waiting yet, as the Redis `wake` list is trimmed. */
const MAX_WAKES = 16;

/** A subscriber as the memory adapters keep it. */
export interface MemorySubscriber {
  record: Omit<SubscriberRecord, 'topics'>;
  readonly topics: Set<string>;
  sent: number;
  health: number;
  /** Its early batch, the one new events join. */
  early: string | undefined;
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
 * behave alike. Batches are kept in creation order.
 */
export class MemoryRouterState {
  /** Topic name to its publisher (`null` while none) and events published. */
  readonly topics = new Map<string, { publisher: string | null; events: number }>();
  /** Subscribers by name. */
  readonly subscribers = new Map<string, MemorySubscriber>();
  /** Every batch, in creation order. */
  readonly batches = new Map<string, MemoryBatch>();
  private readonly wakeups = new Wakeups();
  private wakes = 0;
  private seq = 0;

  /** A new early batch for `subscriber`: first in line for its new events. */
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
    return batch;
  }

  /** Makes an early batch ready, due at `due`, and no longer its subscriber's early one. */
  makeReady(batch: MemoryBatch, due: number): void {
    batch.state = 'ready';
    batch.at = due;
    const sub = this.subscribers.get(batch.subscriber);
    if (sub?.early === batch.id) sub.early = undefined;
  }

  /** Removes a batch and every reference to it. */
  drop(batch: MemoryBatch): void {
    this.batches.delete(batch.id);
    const sub = this.subscribers.get(batch.subscriber);
    if (sub?.early === batch.id) sub.early = undefined;
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
  firstBatchOf(subscriber: string): MemoryBatch | undefined {
    for (const batch of this.batches.values()) if (batch.subscriber === subscriber) return batch;
    return undefined;
  }
}
