import type { DataSource, EntityManager } from 'typeorm';
import { withTransactionGate } from '../uow/transaction-gate.js';
import type { EventQueue, PreparedEvent } from './event-queue.js';

/** What the batcher needs of this process's writer. */
export interface BatcherWriter {
  /** Events were queued: look at the queue now. */
  wake(): void;
  /** Queues and handles a group in one transaction when it can; `undefined` when it did not (see `StoreProcessor.inline`). */
  inline(append: (manager: EntityManager) => Promise<number[]>): Promise<number[] | undefined>;
}

interface Pending {
  readonly event: PreparedEvent;
  resolve(v: number): void;
  reject(error: unknown): void;
}

// Events queued in one transaction at most.
const MAX_GROUP = 500;

/**
 * Queues dispatches made outside a unit of work: those made while a
 * transaction is in flight go together in the next one, so 20 concurrent
 * dispatchers cost a few commits, not 20 (group commit). Order among them is
 * the order of the calls. A group leaves on the event loop's next turn, so
 * dispatchers that all resume from one group's commit (and dispatch again at
 * once) make one group, not one alone and the rest after it. On SQLite,
 * when this process is the writer, a group is queued and handled in one
 * transaction (one commit, one fsync, for a lone dispatch).
 */
export class DispatchBatcher {
  private pending: Pending[] = [];
  private flushing = false;
  private scheduled = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: EventQueue,
    private readonly writer: BatcherWriter,
  ) {}

  /** Queues `event`; resolves with its version once committed. */
  add(event: PreparedEvent): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ event, resolve, reject });
      this.schedule();
    });
  }

  // After the microtasks of this turn: every dispatch they make joins the group.
  private schedule(): void {
    if (this.flushing || this.scheduled || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const group = this.pending.splice(0, MAX_GROUP);
    try {
      const events = group.map((p) => p.event);
      const inline = await this.writer.inline((manager) => this.queue.append(manager, events));
      // On PostgreSQL the append is one statement: it needs no transaction of its own.
      const versions =
        inline ??
        (await withTransactionGate(this.dataSource, () =>
          this.queue.tables.dialect === 'postgres'
            ? this.queue.append(this.dataSource.manager, events)
            : this.dataSource.transaction((manager) => this.queue.append(manager, events)),
        ));
      for (const [i, p] of group.entries()) p.resolve(versions[i] as number);
      this.writer.wake();
    } catch (error) {
      for (const p of group) p.reject(error);
    } finally {
      this.flushing = false;
      this.schedule();
    }
  }
}
