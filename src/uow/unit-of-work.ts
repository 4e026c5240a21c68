import type { EntityManager } from 'typeorm';
import { UnitOfWorkClosedError } from './errors/unit-of-work-closed.error.js';
import { UnitOfWorkHooksError } from './errors/unit-of-work-hooks.error.js';
import type { Operation } from './operation.js';
import type { UnitOfWorkBus, UnitOfWorkEvents } from './unit-of-work-bus.js';

type Phase = 'open' | 'committed' | 'rolledBack';

/**
 * One database transaction plus the operations to run around its outcome.
 * Get one from `withUnitOfWork`, `UnitOfWorkManager.run` or `@unitOfWork()`.
 */
export class UnitOfWork {
  /** Events registered with `SendEventOp`, published after commit. */
  readonly events: UnitOfWorkEvents;
  private readonly operations: Operation[] = [];
  private phase: Phase = 'open';

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

  /** Registers an operation and runs its `onRegister` at once. */
  register(operation: Operation): void {
    if (this.phase !== 'open') {
      throw new UnitOfWorkClosedError(this.phase === 'rolledBack' ? 'rolled back' : this.phase);
    }
    operation.onRegister?.(this);
    this.operations.push(operation);
  }

  /** Whether the transaction is still open. */
  get isOpen(): boolean {
    return this.phase === 'open';
  }

  /**
   * @internal Runs every operation's `onBeforeCommit`, then writes registered
   * events to the outbox; inside the transaction, just before commit.
   */
  async beforeCommit(): Promise<void> {
    for (const op of this.operations) await op.onBeforeCommit?.(this);
    await this.events.beforeCommit(this.manager);
  }

  /** @internal Runs `onCommit` then `onPostCommit` of every operation; rethrows the first failure. */
  async afterCommit(): Promise<void> {
    this.phase = 'committed';
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
