import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import type { Logger } from '../../support/logger.js';
import { withTransactionGate } from '../../uow/transaction-gate.js';
import { EventStoreUsageError } from '../errors/event-store-usage.error.js';
import { SubscriptionHaltedError } from '../errors/subscription-halted.error.js';
import { SubscriptionTimeoutError } from '../errors/subscription-timeout.error.js';
import type { Listener } from '../event-model.js';
import { EventQueue } from '../event-queue.js';
import type { OperatorNote } from '../operator-actions.js';
import { StoreTables } from '../store-tables.js';
import { waitTimeout } from '../version-watch.js';
import { CheckpointTable, toStatus } from './checkpoint-table.js';
import { Subscription } from './subscription.js';
import {
  checkName,
  isVersion,
  resolveSubscriptionOptions,
  type SubscriptionOptions,
  type SubscriptionStart,
} from './subscription-options.js';
import type { SubscriptionStatus } from './subscription-status.js';

/** What the subscriptions need from their event store. */
export interface SubscriptionHost {
  /** The store's DataSource. */
  readonly dataSource: DataSource;
  /** Adds a listener called after each commit in the writer process (to wake consumers there at once). */
  addListener(listener: Listener): () => void;
}

/** How long `caughtUp` waits and how often it looks. */
export interface CaughtUpOptions {
  /** Reject with `SubscriptionTimeoutError` after this many ms. @defaultValue no limit */
  readonly timeoutMs?: number;
  /** How often to read the checkpoint, in ms. @defaultValue 50 */
  readonly pollMs?: number;
}

interface Parts {
  readonly queue: EventQueue;
  readonly table: CheckpointTable;
}

/**
 * `store.subscriptions`: durable subscriptions to the store's history. Each
 * has a checkpoint row in `commitbus_es_subscriptions`; `start` runs one in
 * this process (any process: it need not be the writer), and only the
 * process holding the row's lease consumes it. The rest (`list`, `resume`,
 * `reset`, `remove`, `caughtUp`) works from any process.
 */
export class Subscriptions {
  private readonly running = new Map<string, Subscription>();
  private parts: Parts | undefined;
  private unlisten: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly host: SubscriptionHost,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts subscription `options.name` in this process: creates its
   * checkpoint at `options.from` if it has none, then consumes whenever this
   * process holds its lease. Resolves once its checkpoint row exists.
   */
  async start(options: SubscriptionOptions): Promise<Subscription> {
    this.open();
    const resolved = resolveSubscriptionOptions(options);
    const { name } = resolved;
    if (this.running.has(name))
      throw new EventStoreUsageError(`subscription "${name}" is already started on this store`);
    const { queue, table } = this.ready();
    await table.ensure(name, () => this.positionFor(resolved.from));
    if (this.closed || this.running.has(name))
      throw new EventStoreUsageError(
        `subscription "${name}" was started twice, or its store closed meanwhile`,
      );
    const subscription: Subscription = new Subscription(resolved, {
      dataSource: this.host.dataSource,
      queue,
      table,
      logger: this.logger,
      owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
      caughtUp: (n, o) => this.caughtUp(n, o),
      onStopped: () => {
        if (this.running.get(name) === subscription) this.running.delete(name);
      },
    });
    this.running.set(name, subscription);
    this.unlisten ??= this.host.addListener(() => {
      for (const running of this.running.values()) running.wake();
    });
    subscription.run();
    return subscription;
  }

  /** Every subscription's status, from the checkpoint table (all processes'), by name. */
  async list(): Promise<SubscriptionStatus[]> {
    const { table } = this.ready();
    const handled = await this.handled();
    return (await table.all()).map((row) => toStatus(row, handled));
  }

  /** Subscription `name`'s status, or `undefined` when it has no checkpoint. */
  async status(name: string): Promise<SubscriptionStatus | undefined> {
    const row = await this.ready().table.get(name);
    return row === undefined ? undefined : toStatus(row, await this.handled());
  }

  /**
   * Resolves with subscription `name`'s checkpoint once it consumed every
   * version the store had handled when called, whichever process consumes
   * it. Rejects with `SubscriptionHaltedError` when it is (or becomes)
   * halted first, `SubscriptionTimeoutError` after `timeoutMs`.
   */
  async caughtUp(name: string, options: CaughtUpOptions = {}): Promise<number> {
    const { timeoutMs } = waitTimeout(options.timeoutMs);
    const { table } = this.ready();
    const target = await this.handled();
    const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
    for (;;) {
      const row = await table.get(name);
      if (row === undefined) throw noSuchSubscription(name);
      if (row.position >= target) return row.position;
      if (row.status === 'halted') throw new SubscriptionHaltedError(name, row.error);
      const left = deadline - Date.now();
      if (left <= 0) throw new SubscriptionTimeoutError(name, target, row.position, timeoutMs ?? 0);
      await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs ?? 50, left)));
    }
  }

  /** Lets a halted subscription try its event again (after a fix); logged. Resolves with its status. */
  async resume(name: string, note: OperatorNote = {}): Promise<SubscriptionStatus> {
    return this.operate('resume', name, note, undefined);
  }

  /**
   * Moves subscription `name`'s checkpoint so it next gets `from` (a version,
   * `'beginning'` or `'end'`) and makes it active: to consume history again,
   * or to step over the event it halted at (`from: v + 1`). Logged.
   */
  async reset(
    name: string,
    options: { from: SubscriptionStart } & OperatorNote,
  ): Promise<SubscriptionStatus> {
    const from = options?.from;
    if (from !== 'beginning' && from !== 'end' && !isVersion(from))
      throw new EventStoreUsageError(`reset takes { from: 'beginning' | 'end' | a version from 1 up }`);
    return this.operate('reset', name, options, await this.positionFor(from));
  }

  /**
   * Deletes subscription `name`'s checkpoint (stop it everywhere first: a
   * live lease is refused), so pruning no longer keeps history for it.
   * Resolves with whether it existed.
   */
  async remove(name: string): Promise<boolean> {
    checkName(name, usage);
    return this.ready().table.remove(name);
  }

  /** Stops every subscription started here (each as `stop()` does). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.unlisten?.();
    await Promise.all([...this.running.values()].map((subscription) => subscription.stop()));
  }

  private async operate(
    action: 'resume' | 'reset',
    name: string,
    note: OperatorNote,
    position: number | undefined,
  ): Promise<SubscriptionStatus> {
    checkName(name, usage);
    const { table } = this.ready();
    if (!(await table.restart(name, position))) throw noSuchSubscription(name);
    for (const running of this.running.values()) running.wake();
    const status = (await this.status(name)) as SubscriptionStatus;
    this.logger.warn(
      { action, subscription: name, position: status.position, by: note.by, reason: note.reason },
      `event store: operator ${action} of subscription "${name}" (next v${status.position + 1})`,
    );
    return status;
  }

  // The checkpoint a start point means: the version before the first one to consume.
  private async positionFor(from: SubscriptionStart): Promise<number> {
    if (from === 'beginning') return 0;
    if (from === 'end') return this.handled();
    return from - 1;
  }

  private handled(): Promise<number> {
    const { queue } = this.ready();
    const { dataSource } = this.host;
    return withTransactionGate(dataSource, () => queue.versions(dataSource.manager)).then((v) => v.handled);
  }

  // The tables, checked on first use (a store that never subscribes needs no checkpoint table).
  private ready(): Parts {
    if (this.parts === undefined) {
      const tables = new StoreTables(this.host.dataSource);
      this.parts = { queue: new EventQueue(tables), table: new CheckpointTable(tables) };
    }
    return this.parts;
  }

  private open(): void {
    if (this.closed)
      throw new EventStoreUsageError('the event store is closed: make a new one with createEventStore');
  }
}

function usage(message: string): never {
  throw new EventStoreUsageError(message);
}

function noSuchSubscription(name: string): EventStoreUsageError {
  return new EventStoreUsageError(
    `there is no subscription named "${name}" (start it with store.subscriptions.start({ name, handle }))`,
  );
}
