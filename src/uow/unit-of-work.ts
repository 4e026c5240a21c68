import type { EntityManager } from 'typeorm';
import { NestedUnitOfWorkFailedError } from './errors/nested-unit-of-work-failed.error.js';
import { UnitOfWorkClosedError } from './errors/unit-of-work-closed.error.js';
import { UnitOfWorkHooksError } from './errors/unit-of-work-hooks.error.js';
import type { Operation } from './operation.js';
import type { UnitOfWorkBus, UnitOfWorkEvents } from './unit-of-work-bus.js';

type Phase = 'open' | 'rollbackRequested' | 'committed' | 'rolledBack';

const REGISTERED: Promise<void> = Promise.resolve();

/**
 * One database transaction plus the operations to run around its outcome.
 * Get one from `withUnitOfWork`, `UnitOfWorkManager.run` or `@unitOfWork()`.
 */
export class UnitOfWork {
  /** Events registered with `SendEventOp`, published after commit. */
  readonly events: UnitOfWorkEvents;
  private readonly operations: Operation[] = [];
  // The async onRegister hooks started, awaited before the unit of work ends.
  private readonly registering: Promise<void>[] = [];
  private phase: Phase = 'open';
  // What a unit of work joined to this one threw, kept even if the caller caught it.
  private nestedFailure: { readonly error: unknown } | undefined;

  /**
   * @param manager - the transaction's EntityManager: do all writes through it.
   * @param bus - where this unit of work publishes its events (and keeps them in its outbox).
   */
  constructor(
    readonly manager: EntityManager,
    readonly bus: UnitOfWorkBus,
  ) {
    this.events = bus.openEvents();
  }

  /**
   * Registers an operation and runs its `onRegister` at once. An async
   * `onRegister` (one that does I/O, such as writing its record) is awaited
   * before the unit of work commits, and its failure fails the unit of work;
   * the promise returned settles with it, so a service may await it to see
   * the outcome at once. An `onRegister` that throws at once (a refused
   * argument: `InvalidDeliveryOptionsError`, `NoBusError`) throws from
   * `register` itself, the operation not registered; a caller that catches
   * it carries on and the unit of work may commit. Throws
   * {@link UnitOfWorkClosedError} once the unit of work is committing,
   * committed or rolled back.
   */
  register(operation: Operation): Promise<void> {
    if (this.phase !== 'open') {
      throw new UnitOfWorkClosedError(this.phase === 'committed' ? 'committed' : 'rolled back');
    }
    const registering = operation.onRegister?.(this);
    this.operations.push(operation);
    if (registering === undefined) return REGISTERED;
    const settled = Promise.resolve(registering);
    // Not an unhandled rejection: the unit of work fails with it before commit.
    settled.catch(() => {});
    this.registering.push(settled);
    return settled;
  }

  /**
   * Ends this unit of work as a rollback without throwing (Invenio's
   * `uow.rollback()`): when its callback returns, the transaction is rolled
   * back, the operations' `onRollback` and `onPostRollback` run (not
   * `onException`), no event is sent, and the callback's value is returned.
   * From now on registering throws {@link UnitOfWorkClosedError}; a unit of
   * work started inside this one still joins it, and fails so. In an event
   * store cycle (`ctx.uow`), which the store commits with its batch, it
   * fails the event instead (`EventStoreUsageError`).
   */
  rollback(): void {
    if (this.phase === 'open') this.phase = 'rollbackRequested';
  }

  /** @internal Whether {@link rollback} was called and the transaction is to be rolled back. */
  get rollbackRequested(): boolean {
    return this.phase === 'rollbackRequested';
  }

  /** @internal Whether its transaction has not ended yet: units of work started inside it join it. */
  get inTransaction(): boolean {
    return this.phase === 'open' || this.phase === 'rollbackRequested';
  }

  /**
   * @internal Runs `fn` as a unit of work joined to this one (started inside
   * it): a throw poisons this unit of work, which then rolls back with
   * {@link NestedUnitOfWorkFailedError} even if the caller catches the error.
   */
  async join<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    try {
      return await fn(this);
    } catch (error) {
      this.nestedFailure ??= { error };
      throw error;
    }
  }

  /** @internal Throws {@link NestedUnitOfWorkFailedError} if a unit of work joined to this one threw. */
  throwIfNestedFailed(): void {
    if (this.nestedFailure !== undefined) throw new NestedUnitOfWorkFailedError(this.nestedFailure.error);
  }

  /**
   * @internal Waits for every async `onRegister` (those they register too);
   * throws the first failure, in registration order, once all have settled.
   */
  async registered(): Promise<void> {
    let waited = 0;
    while (waited < this.registering.length) {
      const batch = this.registering.slice(waited);
      waited = this.registering.length;
      await Promise.allSettled(batch);
    }
    for (const registering of this.registering) await registering;
  }

  /** Whether the transaction is still open. */
  get isOpen(): boolean {
    return this.phase === 'open';
  }

  /**
   * @internal Runs every operation's `onBeforeCommit`, waits for the async
   * `onRegister` of those they registered, then writes registered events (to
   * the outbox, or the transport's own tables on its DataSource); inside the
   * transaction, just before commit.
   */
  async beforeCommit(): Promise<void> {
    for (const op of this.operations) await op.onBeforeCommit?.(this);
    // Operations a hook registered: their async onRegister must settle before the commit too.
    await this.registered();
    await this.events.beforeCommit(this.manager);
  }

  /** @internal Runs `onCommit` then `onPostCommit` of every operation; rethrows the first failure. */
  async afterCommit(): Promise<void> {
    this.phase = 'committed';
    this.events.committed?.();
    await this.runHooks([(op) => op.onCommit?.(this), (op) => op.onPostCommit?.(this)]);
  }

  /** @internal Runs `onException`, `onRollback`, `onPostRollback`; rethrows the first failure. */
  async afterRollback(error: unknown): Promise<void> {
    this.phase = 'rolledBack';
    await this.runHooks([
      (op) => op.onException?.(this, error),
      (op) => op.onRollback?.(this),
      (op) => op.onPostRollback?.(this),
    ]);
  }

  /** @internal After {@link rollback}: runs `onRollback`, `onPostRollback` (no `onException`); rethrows the first failure. */
  async afterRequestedRollback(): Promise<void> {
    this.phase = 'rolledBack';
    await this.runHooks([(op) => op.onRollback?.(this), (op) => op.onPostRollback?.(this)]);
  }

  // Every hook runs even if an earlier one threw: one failing operation must
  // not keep the others' post-commit work from happening.
  private async runHooks(phases: ((op: Operation) => void | Promise<void>)[]): Promise<void> {
    const errors: unknown[] = [];
    for (const phase of phases) {
      for (const op of this.operations) {
        try {
          await phase(op);
        } catch (error) {
          // Every SendEventOp awaits the same flush: one failure, reported once.
          if (!errors.includes(error)) errors.push(error);
        }
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1)
      throw new UnitOfWorkHooksError(`${errors.length} unit-of-work hooks failed`, errors);
  }
}
