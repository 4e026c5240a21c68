import type {
  AppendResult,
  LateOrderedEvent,
  OutgoingEvent,
  SkippedRange,
} from '../../events/outgoing-event.js';
import type { EventLog, LogEntry } from '../../handlers/event-log.js';
import { Wakeups } from './wakeups.js';

interface Pending {
  readonly entry: LogEntry;
  consumer: string;
  since: number;
  /** Times handed to a drain, as a Redis stream counts them. */
  deliveries: number;
}

/** `EventLog` in this process's memory, with the Redis stream's semantics. */
export class MemoryEventLog implements EventLog {
  private nextId = 1;
  private waiting: LogEntry[] = [];
  private readonly pending = new Map<string, Pending>();
  /** When each entry not yet acknowledged was appended, oldest first (ids only grow). */
  private readonly appendedAt = new Map<string, number>();
  private readonly wakeups = new Wakeups();
  /** Accepted ids and when they may be accepted again. */
  private readonly seen = new Map<string, number>();
  /** Delayed events, by delivery time (stable for equal times). */
  private delayedEvents: { deliverAt: number; payload: string }[] = [];

  /**
   * @param dedupeWindowMs - how long accepted ids are remembered.
   * @param onChange - called whenever entries are added or acknowledged.
   * @param toLane - takes an ordered event (after the dedupe check); false if its position was taken,
   *   the re-base that skipped its position if it came late.
   */
  constructor(
    private readonly dedupeWindowMs: number,
    private readonly onChange: () => void = () => {},
    private readonly toLane: (
      lane: string,
      payload: string,
      position: number | undefined,
    ) => boolean | SkippedRange = () => false,
  ) {}

  async append(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    const now = Date.now();
    this.forgetExpired(now);
    let appended = 0;
    let delayed = 0;
    let dropped = 0;
    const late: LateOrderedEvent[] = [];
    for (const event of events) {
      if (!event.skipDedupe) {
        if ((this.seen.get(event.id) ?? 0) > now) {
          dropped++;
          continue;
        }
        this.seen.delete(event.id);
        this.seen.set(event.id, now + this.dedupeWindowMs);
      }
      if (event.lane !== undefined) {
        const taken = this.toLane(event.lane, event.payload, event.position);
        if (taken === true) appended++;
        else if (taken === false) dropped++;
        else {
          // Late, as `publish-events.lua` has it: its id is forgotten, so a publish again finds it late again.
          if (!event.skipDedupe) this.seen.delete(event.id);
          late.push({ event, position: event.position ?? 0, rebase: taken });
        }
      } else if (event.deliverAt !== undefined && event.deliverAt > now) {
        const at = event.deliverAt;
        const index = this.delayedEvents.findIndex((d) => d.deliverAt > at);
        const item = { deliverAt: at, payload: event.payload };
        if (index < 0) this.delayedEvents.push(item);
        else this.delayedEvents.splice(index, 0, item);
        delayed++;
      } else {
        this.push(event.payload, now);
        appended++;
      }
    }
    if (appended > 0) this.wakeAll();
    this.onChange();
    return late.length === 0 ? { appended, delayed, dropped } : { appended, delayed, dropped, late };
  }

  async releaseDue(limit: number): Promise<number> {
    const now = Date.now();
    let due = 0;
    while (
      due < limit &&
      due < this.delayedEvents.length &&
      (this.delayedEvents[due]?.deliverAt ?? 0) <= now
    ) {
      due++;
    }
    if (due === 0) return 0;
    for (const { payload } of this.delayedEvents.splice(0, due)) this.push(payload, now);
    this.wakeAll();
    this.onChange();
    return due;
  }

  private push(payload: string, now: number): void {
    const entryId = String(this.nextId++);
    this.waiting.push({ entryId, payload });
    this.appendedAt.set(entryId, now);
  }

  async delayed(): Promise<number> {
    return this.delayedEvents.length;
  }

  // Map iteration follows insertion order, which is expiry order: stop at the first live id.
  private forgetExpired(now: number): void {
    for (const [id, until] of this.seen) {
      if (until > now) break;
      this.seen.delete(id);
    }
  }

  async read(consumer: string, count: number, blockMs: number): Promise<LogEntry[]> {
    if (this.waiting.length === 0) await this.wakeups.wait(blockMs);
    const taken = this.waiting.splice(0, count);
    const now = Date.now();
    for (const entry of taken)
      this.pending.set(entry.entryId, { entry, consumer, since: now, deliveries: 1 });
    return taken.map((entry) => ({ ...entry, deliveries: 1 }));
  }

  /**
   * Counts deliveries as a Redis stream does, but only a drain of this
   * process that stalled past `minIdleMs` can leave an entry to claim: when
   * the process dies the log dies with it, so a process-killing handler is
   * never seen twice here.
   */
  async claimStale(consumer: string, minIdleMs: number): Promise<LogEntry | undefined> {
    const now = Date.now();
    for (const p of this.pending.values()) {
      if (now - p.since < minIdleMs) continue;
      p.consumer = consumer;
      p.since = now;
      p.deliveries++;
      return { ...p.entry, deliveries: p.deliveries };
    }
    return undefined;
  }

  async hasStale(minIdleMs: number): Promise<boolean> {
    const now = Date.now();
    for (const p of this.pending.values()) if (now - p.since >= minIdleMs) return true;
    return false;
  }

  async ack(entryIds: readonly string[]): Promise<void> {
    for (const id of entryIds) {
      this.pending.delete(id);
      this.appendedAt.delete(id);
    }
    this.onChange();
  }

  async backlog(): Promise<number> {
    return this.waiting.length + this.pending.size;
  }

  async oldestAt(): Promise<Date | undefined> {
    for (const at of this.appendedAt.values()) return new Date(at);
    return undefined;
  }

  async removeConsumer(): Promise<void> {}

  /** Ends every blocking read now (used on shutdown). */
  wakeAll(): void {
    this.wakeups.wakeAll();
  }
}
