import type { UnitOfWork } from './unit-of-work.js';

/**
 * Something to do as part of a unit of work. Every hook is optional and may be
 * async; hooks of all operations run in registration order.
 *
 * On success: every `onBeforeCommit` (in the transaction), DB commit, then
 * every `onCommit`, then every `onPostCommit`.
 * On failure: DB rollback, then every `onException`, `onRollback`, `onPostRollback`.
 * Rolled back on purpose (`uow.rollback()`): the same without `onException`.
 */
export interface Operation {
  /**
   * Runs at once when the operation is registered. It may be async (write
   * its record, say): the unit of work awaits it before it commits, and a
   * failure fails the unit of work (rolled back, the error rethrown).
   */
  onRegister?(uow: UnitOfWork): void | Promise<void>;
  /**
   * Runs inside the transaction just before commit, after the work of the
   * unit of work and before its events are written (to the outbox, or to the
   * transport's own tables when it keeps them in this database); a throw
   * rolls the unit of work back.
   */
  onBeforeCommit?(uow: UnitOfWork): void | Promise<void>;
  /** Runs after the DB commit. */
  onCommit?(uow: UnitOfWork): void | Promise<void>;
  /** Runs after every operation's `onCommit`. */
  onPostCommit?(uow: UnitOfWork): void | Promise<void>;
  /** Runs after the rollback, with what made the unit of work fail. */
  onException?(uow: UnitOfWork, error: unknown): void | Promise<void>;
  /** Runs after every operation's `onException`. */
  onRollback?(uow: UnitOfWork): void | Promise<void>;
  /** Runs after every operation's `onRollback`. */
  onPostRollback?(uow: UnitOfWork): void | Promise<void>;
}
