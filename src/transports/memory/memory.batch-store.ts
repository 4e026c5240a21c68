import type { Batch } from '../../router/batch.js';
import type { BatchStore, DroppedBatches, TakeOptions } from '../../router/batch-store.js';
import { UnknownSubscriberError } from '../../router/errors/unknown-subscriber.error.js';
import type { SubscriberQueueStats } from '../../router/subscriber.js';
import type { IngestResult } from '../../router/topic.js';
import type { MemoryRouterCatalog } from './memory.router-catalog.js';
import type { MemoryBatch, MemoryRouterState, MemorySubscriber } from './memory.router-state.js';

/** Rough bytes per batch besides its events, for {@link MemoryBatchStore.memoryUsed}. */
const BATCH_OVERHEAD = 200;

/**
 * {@link BatchStore} in this process's memory, over the subscribers of its
 * {@link MemoryRouterCatalog}, with the semantics of the Redis scripts
 * (`router-*.lua`): each method runs without awaiting, so it is atomic here.
 */
export class MemoryBatchStore implements BatchStore {
  private readonly state: MemoryRouterState;

  /** @param catalog - whose topics and subscribers the batches are for. */
  constructor(catalog: MemoryRouterCatalog) {
    this.state = catalog.state;
  }

  async ingest(
    publisher: string,
    topic: string,
    events: readonly string[],
    now: number,
  ): Promise<IngestResult> {
    const { state } = this;
    const known = state.topics.get(topic);
    if (known?.publisher != null && known.publisher !== publisher)
      return { ok: false, owner: known.publisher };
    state.topics.set(topic, { publisher, events: (known?.events ?? 0) + events.length });
    let subscribers = 0;
    let ready = 0;
    for (const name of [...state.subscribers.keys()].sort()) {
      const sub = state.subscribers.get(name);
      if (sub === undefined || !sub.topics.has(topic)) continue;
      subscribers += 1;
      const { maxEvents, timeoutMs } = sub.record;
      let i = 0;
      while (i < events.length) {
        let batch = sub.early === undefined ? undefined : state.batches.get(sub.early);
        if (batch === undefined) {
          batch = state.newBatch(name, now, 'early', now + timeoutMs);
          sub.early = batch.id;
        }
        const room = maxEvents - batch.events.length;
        const take = Math.max(0, Math.min(room, events.length - i));
        batch.events.push(...events.slice(i, i + take));
        i += take;
        if (batch.events.length >= maxEvents || batch.at <= now) {
          state.makeReady(batch, now);
          ready += 1;
        }
      }
    }
    if (ready > 0) state.wake(ready);
    return { ok: true, subscribers };
  }

  async promoteDue(now: number): Promise<number> {
    const due = [...this.state.batches.values()]
      .filter((b) => b.state === 'early' && b.at <= now)
      .sort(byAtThenId);
    for (const batch of due) this.state.makeReady(batch, batch.at);
    if (due.length > 0) this.state.wake(due.length);
    return due.length;
  }

  /** Walks the subscribers in line, not the batches, as `router-take.lua` does. */
  async take({ worker, limit, now, leaseMs, maxInFlightPerSubscriber }: TakeOptions): Promise<Batch[]> {
    const { state } = this;
    const taken: Batch[] = [];
    // Each turn takes a batch or lines a subscriber up past now (or out); see router-take.lua.
    for (let turn = 0; turn < limit + 100 && taken.length < limit; turn++) {
      const first = state.due.first();
      if (first === undefined || first.score > now) break;
      const name = first.member;
      const sub = state.subscribers.get(name);
      if (sub === undefined) {
        state.due.delete(name);
        continue;
      }
      sub.cap = maxInFlightPerSubscriber;
      const batch = this.next(sub, now);
      if (batch === undefined) {
        state.lineUp(name);
        continue;
      }
      state.lease(batch, worker, now + leaseMs);
      taken.push({
        id: batch.id,
        subscriber: batch.subscriber,
        events: [...batch.events],
        createdAt: batch.createdAt,
        attempts: batch.attempts,
        health: sub.health,
        ...(batch.lastError === undefined ? {} : { lastError: batch.lastError }),
      });
    }
    return taken;
  }

  /** The batch `sub` would send now: its earliest ready one due by `now` or, when ordered, its oldest once ready. */
  private next(sub: MemorySubscriber, now: number): MemoryBatch | undefined {
    const cap = sub.record.ordered ? 1 : (sub.cap ?? Number.POSITIVE_INFINITY);
    if (sub.record.paused || sub.inflight >= cap) return undefined;
    const batch = sub.record.ordered
      ? this.state.firstBatchOf(sub)
      : this.state.batches.get(sub.ready.first()?.member ?? '');
    return batch?.state === 'ready' && batch.at <= now ? batch : undefined;
  }

  waitForWork(timeoutMs: number): Promise<void> {
    return this.state.waitForWake(timeoutMs);
  }

  async ack(worker: string, batchId: string): Promise<boolean> {
    const batch = this.held(worker, batchId);
    if (batch === undefined) return false;
    this.state.drop(batch);
    const sub = this.state.subscribers.get(batch.subscriber);
    if (sub !== undefined) {
      sub.sent += batch.events.length;
      sub.health = Math.min(100, sub.health + 1);
      sub.lastError = null;
    }
    return true;
  }

  async nack(worker: string, batchId: string, retryAt: number, error: string): Promise<boolean> {
    const batch = this.held(worker, batchId);
    if (batch === undefined) return false;
    this.retry(batch, retryAt);
    batch.lastError = error;
    const sub = this.state.subscribers.get(batch.subscriber);
    if (sub !== undefined) {
      sub.health = Math.max(0, sub.health - 2);
      sub.lastError = { message: error, at: Date.now() };
    }
    this.state.wake();
    return true;
  }

  async discard(worker: string, batchId: string): Promise<boolean> {
    const batch = this.held(worker, batchId);
    if (batch === undefined) return false;
    this.state.drop(batch);
    return true;
  }

  async requeue(subscriber: string, events: readonly string[], now: number): Promise<void> {
    if (!this.state.subscribers.has(subscriber)) throw new UnknownSubscriberError(subscriber);
    if (events.length === 0) return;
    this.state.newBatch(subscriber, now, 'ready', now).events.push(...events);
    this.state.wake();
  }

  async recoverExpired(now: number, retryAt: number): Promise<number> {
    const expired = [...this.state.batches.values()].filter((b) => b.state === 'pending' && b.at <= now);
    for (const batch of expired) this.retry(batch, retryAt);
    if (expired.length > 0) this.state.wake(expired.length);
    return expired.length;
  }

  async dropOldest(limit: number): Promise<DroppedBatches> {
    const eventsBySubscriber: Record<string, number> = {};
    let batches = 0;
    for (const batch of [...this.state.batches.values()]) {
      if (batches >= limit) break;
      if (batch.state === 'pending') continue;
      this.state.drop(batch);
      batches += 1;
      eventsBySubscriber[batch.subscriber] =
        (eventsBySubscriber[batch.subscriber] ?? 0) + batch.events.length;
    }
    return { batches, eventsBySubscriber };
  }

  async memoryUsed(): Promise<number> {
    let bytes = 0;
    for (const batch of this.state.batches.values()) {
      bytes += BATCH_OVERHEAD;
      for (const event of batch.events) bytes += event.length * 2;
    }
    return bytes;
  }

  async stats(): Promise<Record<string, SubscriberQueueStats>> {
    const stats: Record<string, SubscriberQueueStats> = {};
    for (const name of [...this.state.subscribers.keys()].sort()) {
      const sub = this.state.subscribers.get(name);
      if (sub === undefined) continue;
      let queued = 0;
      for (const batch of sub.batches.values()) queued += batch.events.length;
      stats[name] = {
        sent: sub.sent,
        queued,
        oldest: this.state.firstBatchOf(sub)?.createdAt ?? null,
        batches: sub.batches.size,
        health: sub.health,
        lastError: sub.lastError === null ? null : { ...sub.lastError },
      };
    }
    return stats;
  }

  async countDue(by: number): Promise<number> {
    let count = 0;
    for (const batch of this.state.batches.values()) {
      if (batch.state === 'pending' || batch.at > by) continue;
      if (this.state.subscribers.get(batch.subscriber)?.record.paused !== true) count += 1;
    }
    return count;
  }

  /** The pending batch `worker` holds, if it still does. */
  private held(worker: string, batchId: string): MemoryBatch | undefined {
    const batch = this.state.batches.get(batchId);
    return batch?.state === 'pending' && batch.worker === worker ? batch : undefined;
  }

  /** A pending batch back to ready, due at `retryAt`, with one more attempt. */
  private retry(batch: MemoryBatch, retryAt: number): void {
    batch.attempts += 1;
    this.state.makeReady(batch, retryAt);
  }
}

/** Sorted as a Redis sorted set sorts: by score, then by member. */
function byAtThenId(a: MemoryBatch, b: MemoryBatch): number {
  return a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
