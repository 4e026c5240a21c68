import type { DataSource } from 'typeorm';
import { withTransactionGate } from '../uow/transaction-gate.js';
import { EventStoreHaltedError } from './errors/event-store-halted.error.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { EventQueue } from './event-queue.js';
import type { HistoryEvent } from './store-event.js';

interface Waiter {
  readonly v: number;
  resolve(version: number): void;
  reject(error: unknown): void;
}

/**
 * Waits for versions to be handled, by this process's writer or any other:
 * the local writer reports at once; while anyone waits, the handled version
 * (and a halt at the next event) is also polled from the database.
 */
export class VersionWatch {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private closed = false;
  private last = 0;
  // The event the store is known to be halted at, so new waiters past it learn at once.
  private haltedAt: HistoryEvent | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: EventQueue,
    private readonly pollMs: number,
  ) {}

  /** Resolves with the handled version once it is at least `v`; rejects when the store halts at or before `v`. */
  until(v: number): Promise<number> {
    if (this.closed) return Promise.reject(closedError());
    if (v <= this.last) return Promise.resolve(this.last);
    if (this.haltedAt !== undefined && v >= this.haltedAt.v)
      return Promise.reject(new EventStoreHaltedError(this.haltedAt));
    return new Promise<number>((resolve, reject) => {
      this.waiters.add({ v, resolve, reject });
      this.schedule();
    });
  }

  /** The local writer handled up to `version`. */
  handled(version: number): void {
    if (version <= this.last) return;
    this.last = version;
    if (this.haltedAt !== undefined && version >= this.haltedAt.v) this.haltedAt = undefined;
    for (const waiter of this.waiters) {
      if (waiter.v <= version) {
        this.waiters.delete(waiter);
        waiter.resolve(version);
      }
    }
  }

  /**
   * Event `event.v` failed: waiters for it or later learn the store is
   * halted; so do new ones, until it is handled, when this process's writer
   * reported it (`local`).
   */
  halted(event: HistoryEvent, local = true): void {
    // Its row read after an operator skipped, retried or corrected it: the store is not halted there any more.
    if (event.status !== 'queued' || event.attempts === 0) return;
    if (local) this.haltedAt = event;
    for (const waiter of this.waiters) {
      if (waiter.v >= event.v) {
        this.waiters.delete(waiter);
        waiter.reject(new EventStoreHaltedError(event));
      }
    }
  }

  /** The halted event was retried, corrected or skipped: waiters wait again. */
  resumed(): void {
    this.haltedAt = undefined;
  }

  /** Rejects every waiter and stops polling. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const waiter of this.waiters) waiter.reject(closedError());
    this.waiters.clear();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.polling || this.closed || this.waiters.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, this.pollMs);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      // On SQLite the one connection may be inside the writer's transaction: read between transactions.
      await withTransactionGate(this.dataSource, async () => {
        const { handled } = await this.queue.versions(this.dataSource.manager);
        this.handled(handled);
        if (this.waiters.size > 0) {
          const [next] = await this.queue.history(this.dataSource.manager, [handled + 1]);
          if (next?.error !== undefined && next.status === 'queued' && next.attempts > 0)
            this.halted(next, false);
        }
      });
    } catch {
      // The database is away for a moment: the next poll tries again.
    } finally {
      this.polling = false;
      this.schedule();
    }
  }
}

function closedError(): EventStoreUsageError {
  return new EventStoreUsageError(
    'the event store was closed while waiting for a version: the event stays queued and is handled by the next writer',
  );
}
