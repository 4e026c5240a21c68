import type { DataSource, EntityManager } from 'typeorm';
import { describeError, type Logger } from '../../support/logger.js';
import { retryDelay } from '../../support/retry-policy.js';
import { withTransactionGate } from '../../uow/transaction-gate.js';
import type { EventQueue } from '../event-queue.js';
import { haltRetryPolicy } from '../event-store-options.js';
import type { HistoryEvent } from '../store-event.js';
import type { CheckpointTable } from './checkpoint-table.js';
import { runHandler } from './run-handler.js';
import type { ResolvedSubscriptionOptions } from './subscription-options.js';
import type { SubscriptionFailure } from './subscription-status.js';
import { WakeTimer } from './wake-timer.js';

/** What a {@link Subscription} runs on. */
export interface SubscriptionParts {
  readonly dataSource: DataSource;
  readonly queue: EventQueue;
  readonly table: CheckpointTable;
  readonly logger: Logger;
  /** This consumer's lease holder id (`host:pid:random`). */
  readonly owner: string;
  /** Waits for the subscription to reach the store's handled version (see `Subscriptions.caughtUp`). */
  readonly caughtUp: (name: string, options: { timeoutMs?: number; pollMs?: number }) => Promise<number>;
  /** Called once it stopped. */
  readonly onStopped: () => void;
}

// How one event's delivery went.
type Delivery = { readonly ok: true } | { readonly ok: false; readonly failure?: SubscriptionFailure };

/**
 * A durable subscription started in this process: it competes for the lease
 * on its checkpoint row, and while it holds it reads the history after its
 * checkpoint page by page, calls the handler with each event in order and
 * moves the checkpoint after each page (at least once). Made by
 * `store.subscriptions.start`.
 */
export class Subscription {
  /** The subscription's name. */
  readonly name: string;
  private readonly timer = new WakeTimer();
  private readonly wanted: { types?: ReadonlySet<string>; statuses: ReadonlySet<string> };
  private loop: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  private stopping = false;
  private leased = false;
  private position = 0;
  private attempts = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private controller = new AbortController();

  /** @internal Made by `store.subscriptions.start`. */
  constructor(
    private readonly options: ResolvedSubscriptionOptions,
    private readonly parts: SubscriptionParts,
  ) {
    this.name = options.name;
    this.wanted = {
      ...(options.types === undefined ? {} : { types: new Set(options.types) }),
      statuses: new Set(options.statuses),
    };
  }

  /** Whether this process consumes it now (holds its lease). */
  get isConsuming(): boolean {
    return this.leased;
  }

  /**
   * Resolves with its checkpoint once it consumed every version the store had
   * handled when called (whichever process consumes it). Rejects with
   * `SubscriptionHaltedError` when it halts first, `SubscriptionTimeoutError`
   * after `timeoutMs`.
   */
  caughtUp(options: { timeoutMs?: number; pollMs?: number } = {}): Promise<number> {
    return this.parts.caughtUp(this.name, options);
  }

  /**
   * Stops consuming: lets the handler running finish (up to `stopTimeoutMs`,
   * then aborts `ctx.signal`), stores the checkpoint of what it finished and
   * gives up the lease, so another process takes over at once. Idempotent.
   */
  stop(): Promise<void> {
    this.stopped ??= this.shutDown();
    return this.stopped;
  }

  /** @internal Starts the loop (`store.subscriptions.start` does). */
  run(): void {
    this.loop ??= this.consume();
  }

  /** @internal New versions were handled in this process: look now. */
  wake(): void {
    if (this.leased) this.timer.wake();
  }

  private async shutDown(): Promise<void> {
    this.stopping = true;
    this.timer.wake();
    const loop = this.loop ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.options.stopTimeoutMs);
    });
    const settled = await Promise.race([loop.then(() => true as const), late]);
    clearTimeout(timer);
    if (!settled) {
      this.parts.logger.warn(
        { subscription: this.name, stopTimeoutMs: this.options.stopTimeoutMs },
        'event store: a subscription handler did not settle in time at stop: its signal is aborted and its event will come again',
      );
      this.controller.abort();
    }
    const held = this.leased;
    this.dropLease();
    if (held) await this.parts.table.release(this.name, this.parts.owner).catch(() => {});
    this.parts.onStopped();
  }

  private async consume(): Promise<void> {
    while (!this.stopping) {
      let pause: number;
      try {
        pause = this.leased ? await this.consumePage() : await this.tryAcquire();
      } catch (error) {
        // The database is away for a moment: try again (a lease lapses on its own meanwhile).
        this.parts.logger.warn(
          { subscription: this.name, error: describeError(error) },
          'event store: a subscription could not reach the database; trying again',
        );
        pause = this.options.pollMs;
      }
      if (!this.stopping) await this.timer.sleep(pause);
    }
  }

  // Tries to take the lease; the pause before the next turn.
  private async tryAcquire(): Promise<number> {
    const row = await this.parts.table.acquire(this.name, this.parts.owner, this.options.leaseMs);
    if (row === undefined) return this.options.takeoverMs;
    if (this.stopping) {
      // Stopped while it asked (a stop that gave up waiting has already let go): give it back.
      await this.parts.table.release(this.name, this.parts.owner);
      return 0;
    }
    this.leased = true;
    this.position = row.position;
    this.attempts = row.attempts;
    this.controller = new AbortController();
    const every = Math.max(1, Math.floor(this.options.leaseMs / 3));
    this.heartbeat = setInterval(() => void this.renew(), every);
    this.heartbeat.unref();
    this.parts.logger.info(
      { subscription: this.name, owner: this.parts.owner, position: row.position },
      `event store: subscription "${this.name}" consumes here from v${row.position + 1}`,
    );
    return 0;
  }

  // One page after the checkpoint; the pause before the next turn.
  private async consumePage(): Promise<number> {
    const turn = await this.parts.table.turn(this.name);
    // An operator reset or halted it, or another process took it: read it again from its row.
    if (turn?.owner !== this.parts.owner || turn.status !== 'active' || turn.position !== this.position) {
      this.lost();
      return 0;
    }
    const { handled } = turn;
    if (handled <= this.position) return this.options.pollMs;
    const from = this.position;
    const to = Math.min(handled, from + this.options.batchSize);
    const events = await this.read((manager) => this.parts.queue.range(manager, from + 1, to));
    let done = from;
    let delivery: Delivery = { ok: true };
    for (const event of events) {
      if (event.v !== done + 1 || this.stopping || !this.leased) break;
      if (this.wants(event)) {
        delivery = await this.deliver(event);
        if (!delivery.ok) break;
      }
      done = event.v;
    }
    if (done > from && !(await this.checkpoint(from, done))) return 0;
    if (!delivery.ok) return delivery.failure === undefined ? 0 : this.failed(delivery.failure);
    if (done < to && !this.stopping && this.leased) return this.failed(gapFailure(done + 1, events));
    return 0;
  }

  private wants(event: HistoryEvent): boolean {
    return (
      this.wanted.statuses.has(event.status) &&
      (this.wanted.types === undefined || this.wanted.types.has(event.type))
    );
  }

  private async deliver(event: HistoryEvent): Promise<Delivery> {
    const outcome = await runHandler(this.options.handle, event, {
      name: this.name,
      attempt: this.attempts + 1,
      lease: this.controller.signal,
      timeoutMs: this.options.handlerTimeoutMs,
    });
    if (outcome.ok) {
      this.attempts = 0;
      return { ok: true };
    }
    // A handler cut short by a stop or a lost lease did not fail: its event simply comes again.
    if (this.stopping || !this.leased) return { ok: false };
    const e = outcome.error instanceof Error ? outcome.error : undefined;
    return {
      ok: false,
      failure: {
        reason: 'handler',
        v: event.v,
        type: event.type,
        name: e?.name ?? 'NonError',
        message: e?.message ?? String(outcome.error),
        ...(e?.stack === undefined ? {} : { stack: e.stack }),
        at: Date.now(),
        attempts: this.attempts + 1,
      },
    };
  }

  // Moves the checkpoint; false (and the lease dropped) when another process or an operator moved it.
  private async checkpoint(from: number, to: number): Promise<boolean> {
    const { table, owner } = this.parts;
    if (await table.advance(this.name, owner, from, to, this.options.leaseMs)) {
      this.position = to;
      this.attempts = 0;
      return true;
    }
    this.lost();
    return false;
  }

  // Records a failure at the checkpoint; halts after maxAttempts. The pause before the next try.
  private async failed(failure: SubscriptionFailure): Promise<number> {
    const { table, owner, logger } = this.parts;
    const halt = failure.attempts >= this.options.maxAttempts || failure.reason === 'gap';
    if (!(await table.fail(this.name, owner, this.position, failure, halt))) {
      this.lost();
      return 0;
    }
    this.attempts = failure.attempts;
    const fields = { subscription: this.name, v: failure.v, type: failure.type, attempts: failure.attempts };
    if (halt) {
      this.dropLease();
      logger.error(
        { ...fields, error: failure.message },
        `event store: subscription "${this.name}" halted at v${failure.v}: ${failure.message}. Fix the cause, then store.subscriptions.resume("${this.name}")`,
      );
      return this.options.takeoverMs;
    }
    logger.warn(
      { ...fields, error: failure.message },
      `event store: subscription "${this.name}" failed v${failure.v}; retrying`,
    );
    return retryDelay(haltRetryPolicy(this.options), failure.attempts);
  }

  private async renew(): Promise<void> {
    if (!this.leased) return;
    try {
      if (!(await this.parts.table.renew(this.name, this.parts.owner, this.options.leaseMs))) this.lost();
    } catch {
      // The database is away: the next beat tries again (the lease lapses if it stays away).
    }
  }

  // Another process took the row, or an operator moved or halted it: stand by (and try again).
  private lost(): void {
    if (!this.leased) return;
    this.dropLease();
    this.parts.logger.info(
      { subscription: this.name, owner: this.parts.owner },
      `event store: subscription "${this.name}" is no longer consumed here (its lease was taken, or it was reset)`,
    );
  }

  private dropLease(): void {
    this.leased = false;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.controller.abort();
  }

  private read<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    const { dataSource } = this.parts;
    return withTransactionGate(dataSource, () => fn(dataSource.manager));
  }
}

// The first missing version of a page whose rows stop short of the handled version: pruned history.
function gapFailure(v: number, events: readonly HistoryEvent[]): SubscriptionFailure {
  const next = events.find((event) => event.v > v);
  const missing =
    next === undefined
      ? `rows from v${v} on are`
      : next.v === v + 1
        ? `row v${v} is`
        : `rows v${v}..v${next.v - 1} are`;
  return {
    reason: 'gap',
    v,
    type: '',
    name: 'SubscriptionHistoryGap',
    message: `history ${missing} missing (pruned before the subscription consumed them)`,
    at: Date.now(),
    attempts: 1,
  };
}
