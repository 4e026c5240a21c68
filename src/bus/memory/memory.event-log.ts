import type { EventLog, LogEntry } from '../event-log.js';

interface Pending {
  readonly entry: LogEntry;
  consumer: string;
  since: number;
}

/** {@link EventLog} in this process's memory, with the Redis stream's semantics. */
export class MemoryEventLog implements EventLog {
  private nextId = 1;
  private waiting: LogEntry[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly wakeups = new Set<() => void>();

  /** @param onChange - called whenever entries are added or acknowledged. */
  constructor(private readonly onChange: () => void = () => {}) {}

  async append(payloads: readonly string[]): Promise<void> {
    for (const payload of payloads) this.waiting.push({ entryId: String(this.nextId++), payload });
    this.wakeAll();
    this.onChange();
  }

  async read(consumer: string, count: number, blockMs: number): Promise<LogEntry[]> {
    if (this.waiting.length === 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.wakeups.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, blockMs);
        this.wakeups.add(wake);
      });
    }
    const taken = this.waiting.splice(0, count);
    const now = Date.now();
    for (const entry of taken) this.pending.set(entry.entryId, { entry, consumer, since: now });
    return taken;
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<LogEntry[]> {
    const now = Date.now();
    const claimed: LogEntry[] = [];
    for (const p of this.pending.values()) {
      if (claimed.length >= count) break;
      if (now - p.since < minIdleMs) continue;
      p.consumer = consumer;
      p.since = now;
      claimed.push(p.entry);
    }
    return claimed;
  }

  async ack(entryIds: readonly string[]): Promise<void> {
    for (const id of entryIds) this.pending.delete(id);
    this.onChange();
  }

  async backlog(): Promise<number> {
    return this.waiting.length + this.pending.size;
  }

  async removeConsumer(): Promise<void> {}

  /** Ends every blocking read now (used on shutdown). */
  wakeAll(): void {
    for (const wake of [...this.wakeups]) wake();
  }
}
