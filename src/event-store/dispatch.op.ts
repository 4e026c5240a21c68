import type { Operation } from '../uow/operation.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { currentUnitOfWork } from '../uow/unit-of-work-context.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { PreparedEvent } from './event-queue.js';
import type { HistoryEvent, StoreEvent } from './store-event.js';

/** What a {@link DispatchOp} needs from its store. */
export interface DispatchTarget {
  /** Checks and serializes an event (throws at registration when it is refused). */
  prepare(type: string, data: unknown, options?: { important?: boolean }): PreparedEvent;
  /** Queues events in the caller's transaction; returns their versions. */
  appendIn(uow: UnitOfWork, events: readonly PreparedEvent[]): Promise<number[]>;
  /** Called after commit: events were queued. */
  queued(): void;
  /** Resolves with event `v`'s history once it is handled. */
  handledVersion(v: number): Promise<HistoryEvent>;
}

/**
 * Dispatches an event to the event store in the unit of work's transaction:
 * it is queued (and gets its version) only if the unit of work commits, with
 * the service's other writes. `await op.queued()` after commit gives the
 * version; `await op.handled()` waits for the event to be reduced.
 * ```ts
 * await uowManager.run(async (uow) => {
 *   await uow.manager.save(order);
 *   uow.register(new DispatchOp(store, 'ORDER.PLACED', { id: order.id }));
 * });
 * ```
 */
export class DispatchOp implements Operation {
  private readonly event: PreparedEvent;
  private v: number | undefined;
  private outcome: 'open' | 'committed' | 'rolledBack' = 'open';
  private readonly settled: Promise<void>;
  private settle: () => void = () => {};
  private uow: UnitOfWork | undefined;

  constructor(
    private readonly store: DispatchTarget,
    type: string,
    data?: unknown,
    options: { important?: boolean } = {},
  ) {
    this.event = store.prepare(type, data, options);
    this.settled = new Promise<void>((resolve) => {
      this.settle = resolve;
    });
  }

  /** Operation hook: remembers the unit of work it was registered on. */
  onRegister(uow: UnitOfWork): void {
    this.uow = uow;
  }

  /** Operation hook: queues the event, in the transaction, just before commit. */
  async onBeforeCommit(uow: UnitOfWork): Promise<void> {
    [this.v] = await this.store.appendIn(uow, [this.event]);
  }

  /** Operation hook: the event is queued; wakes this process's writer. */
  onCommit(): void {
    this.outcome = 'committed';
    this.settle();
    this.store.queued();
  }

  /** Operation hook: nothing was queued. */
  onRollback(): void {
    this.outcome = 'rolledBack';
    this.settle();
  }

  /** The queued event, once the unit of work committed; rejects when it rolled back. */
  async queued(): Promise<StoreEvent> {
    if (this.uow?.isOpen === true && currentUnitOfWork() === this.uow) {
      throw new EventStoreUsageError(
        `await op.queued() or op.handled() after the unit of work returns: inside it "${this.event.type}" is not queued yet, and waiting would never end`,
      );
    }
    await this.settled;
    if (this.outcome !== 'committed' || this.v === undefined) {
      throw new EventStoreUsageError(`the unit of work rolled back: "${this.event.type}" was not queued`);
    }
    return { v: this.v, type: this.event.type, ts: this.event.ts, data: this.event.data };
  }

  /** The event's history once it is handled (see `store.dispatch`). */
  async handled(): Promise<HistoryEvent> {
    const { v } = await this.queued();
    return this.store.handledVersion(v);
  }
}
