import { inInternalSpan } from '../tracing/internal-span.js';
import type { BatchStore } from './batch-store.js';
import type { IngestResult } from './topic.js';

/** Publishes waiting for the next flush, for one publisher and topic. */
interface Pending {
  readonly publisher: string;
  readonly topic: string;
  readonly events: string[];
  readonly waiters: { resolve: (result: IngestResult) => void; reject: (error: unknown) => void }[];
}

/**
 * Merges the publishes that arrive in the same turn of the event loop into
 * one {@link BatchStore.ingest} call per publisher and topic (at most
 * `maxEvents` events a call), so a busy API makes one Redis round trip per
 * topic per turn instead of one per request. Each caller still gets the
 * outcome of the call its event went in: nothing is acknowledged before it
 * is stored, and events keep their arrival order.
 */
export class IngestCoalescer {
  private pending = new Map<string, Pending>();
  private scheduled = false;

  /**
   * @param batches - where events are stored.
   * @param now - the clock, epoch ms.
   * @param maxEvents - most events in one call.
   */
  constructor(
    private readonly batches: Pick<BatchStore, 'ingest'>,
    private readonly now: () => number = Date.now,
    private readonly maxEvents = 500,
  ) {}

  /** Queues one event (its JSON) for `topic`; resolves with the outcome of the call it went in. */
  ingest(publisher: string, topic: string, event: string): Promise<IngestResult> {
    return new Promise<IngestResult>((resolve, reject) => {
      // A NUL cannot occur in a client or topic name: the key is unambiguous.
      const key = `${publisher}\u0000${topic}`;
      let group = this.pending.get(key);
      if (group === undefined || group.events.length >= this.maxEvents) {
        if (group !== undefined) this.send(group);
        group = { publisher, topic, events: [], waiters: [] };
        this.pending.set(key, group);
      }
      group.events.push(event);
      group.waiters.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const groups = [...this.pending.values()];
    this.pending = new Map();
    for (const group of groups) this.send(group);
  }

  // One INTERNAL span `router ingest` per call to the store (the events of one publisher and topic).
  private send(group: Pending): void {
    inInternalSpan(
      'router ingest',
      () => ({
        'messaging.destination.name': group.topic,
        'messaging.batch.message_count': group.events.length,
      }),
      () => this.batches.ingest(group.publisher, group.topic, group.events, this.now()),
    ).then(
      (result) => {
        for (const waiter of group.waiters) waiter.resolve(result);
      },
      (error: unknown) => {
        for (const waiter of group.waiters) waiter.reject(error);
      },
    );
  }
}
