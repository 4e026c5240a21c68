import type { DataSource } from 'typeorm';
import { withTransactionGate } from '../uow/transaction-gate.js';
import { EventStoreHaltedError } from './errors/event-store-halted.error.js';
import { EventStoreTimeoutError } from './errors/event-store-timeout.error.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { EventQueue } from './event-queue.js';
import type { HistoryEvent } from './store-event.js';

/** A wait's end: the handled version, and the awaited event's history when it is at hand. */
export interface Reached {
  /** The handled version, at least the one awaited. */
  readonly version: number;
  /** The awaited event, when this process's writer handled it. */
  readonly event?: HistoryEvent;
}

/** How a wait ends besides the version being reached. */
export interface WaitOptions {
  /**
   * `own`: reject when event `v` itself fails (a dispatch waiting for its
   * event); `any`: when any event up to `v` fails (waiting for the queue).
   */
  readonly halt: 'own' | 'any';
  /** Reject with `EventStoreTimeoutError` after this many ms. @defaultValue no limit */
  readonly timeoutMs?: number;
}

interface Waiter {
  readonly v: number;
  readonly halt: 'own' | 'any';
  resolve(reached: Reached): void;
  reject(error: unknown): void;
}

/**
 * Waits for versions to be handled, by this process's writer or any other:
 * the local writer reports at once; while anyone waits, the handled version
 * (and a failure of the next event) is also polled from the database.
 */
export class VersionWatch {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private closed = false;
  private last = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: EventQueue,
    private readonly pollMs: number,
  ) {}

  /**
   * Resolves once the handled version is at least `v` (see {@link WaitOptions}),
   * with event `v`'s history when this process's writer just handled it.
   */
  until(v: number, options: WaitOptions): Promise<Reached> {
    if (this.closed) return Promise.reject(closedError());
    if (v <= this.last) return Promise.resolve({ version: this.last });
    return new Promise<Reached>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        v,
        halt: options.halt,
        resolve: (reached) => {
          clearTimeout(timer);
          resolve(reached);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      if (options.timeoutMs !== undefined) {
        const timeoutMs = options.timeoutMs;
        timer = setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new EventStoreTimeoutError(v, timeoutMs, this.last));
        }, timeoutMs);
      }
      this.waiters.add(waiter);
      this.schedule();
    });
  }

  /**
   * The handled version is `version`; `events` are the ones this process's
   * writer just handled (their waiters get them without reading them back,
   * so a prune right after cannot take them away).
   */
  handled(version: number, events: readonly HistoryEvent[] = []): void {
    if (version <= this.last) return;
    this.last = version;
    const byVersion = new Map(events.map((event) => [event.v, event]));
    for (const waiter of this.waiters) {
      if (waiter.v <= version) {
        this.waiters.delete(waiter);
        const event = byVersion.get(waiter.v);
        waiter.resolve(event === undefined ? { version } : { version, event });
      }
    }
  }

  /**
   * Event `event.v` failed (it stays queued and is retried): the waiters it
   * stops learn it. A new waiter learns of a halt from the next failed
   * attempt or the next poll (the row's error), so never from a stale one.
   */
  halted(event: HistoryEvent): void {
    // Its row read after an operator skipped, retried or corrected it: the store is not halted there any more.
    if (event.status !== 'queued' || event.attempts === 0) return;
    for (const waiter of this.waiters) {
      if (stops(waiter.halt, waiter.v, event.v)) {
        this.waiters.delete(waiter);
        waiter.reject(new EventStoreHaltedError(event, waiter.v));
      }
    }
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
          if (next?.error !== undefined) this.halted(next);
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

/** `{ timeoutMs }` checked (a whole number of ms, within Node's timer range), or `{}`. */
export function waitTimeout(timeoutMs: number | undefined): { timeoutMs?: number } {
  if (timeoutMs === undefined) return {};
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new EventStoreUsageError(
      `timeoutMs must be a whole number from 1 to 2147483647, got ${String(timeoutMs)}`,
    );
  }
  return { timeoutMs };
}

// Whether a failure of event `failed` ends a wait for `v`.
function stops(halt: 'own' | 'any', v: number, failed: number): boolean {
  return halt === 'own' ? v === failed : v >= failed;
}

function closedError(): EventStoreUsageError {
  return new EventStoreUsageError(
    'the event store was closed while waiting for a version: the event stays queued and is handled by the next writer',
  );
}
