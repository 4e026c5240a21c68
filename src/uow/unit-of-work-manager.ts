import type { DataSource, QueryRunner } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel.js';
import { AbortWatch } from './abort-watch.js';
import { NoDataSourceError } from './errors/no-data-source.error.js';
import { UnitOfWorkHooksError } from './errors/unit-of-work-hooks.error.js';
import { NO_BUS } from './no-bus.js';
import { withTransactionGate } from './transaction-gate.js';
import { UnitOfWork } from './unit-of-work.js';
import type { UnitOfWorkBus } from './unit-of-work-bus.js';
import { currentUnitOfWork, runInUnitOfWork } from './unit-of-work-context.js';

/** What a unit of work needs. */
export interface UnitOfWorkOptions {
  /**
   * The TypeORM DataSource whose transactions units of work wrap.
   * @defaultValue the bus's `dataSource`
   */
  dataSource?: DataSource;
  /**
   * Where events registered with `SendEventOp` are published. Without one,
   * units of work run database work and operations (such as the event
   * store's `DispatchOp`) only, and `SendEventOp` throws `NoBusError`.
   */
  bus?: UnitOfWorkBus;
  /** Transaction isolation level; the database's default when absent. */
  isolation?: IsolationLevel;
}

/**
 * Starts units of work on one DataSource and bus. A unit of work started while
 * another on the same DataSource is active joins it: only the outermost
 * commits, and nothing is published before it does. On the DataSource of
 * the bus's SQL transport the event rows are written in the transaction
 * itself (no outbox row); elsewhere, with `outbox.enabled` on (the default),
 * events are written to the DataSource's outbox in the transaction. The bus
 * adopts the DataSource if it had none.
 */
export class UnitOfWorkManager {
  /** The DataSource units of work run on. */
  readonly dataSource: DataSource;

  private readonly bus: UnitOfWorkBus;

  constructor(readonly options: UnitOfWorkOptions) {
    const dataSource = options.dataSource ?? options.bus?.dataSource;
    if (dataSource === undefined) {
      throw new NoDataSourceError();
    }
    this.dataSource = dataSource;
    this.bus = options.bus ?? NO_BUS;
    this.bus.useDataSource(dataSource);
  }

  /**
   * Runs `fn` in a unit of work: commits when it resolves, rolls back when it
   * throws (and rethrows) or when it called `uow.rollback()` (and resolves).
   * After commit, runs the operations' commit hooks; after a rollback, their
   * rollback hooks.
   */
  async run<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const active = currentUnitOfWork();
    if (active !== undefined && active.manager.connection === this.dataSource) {
      return active.join(fn);
    }
    // The gate covers the transaction only: hooks run after it, so a hook
    // may start a unit of work of its own.
    const outcome = await withTransactionGate(this.dataSource, () => this.transaction(fn));
    switch (outcome.kind) {
      case 'committed':
        await outcome.uow.afterCommit();
        return outcome.result;
      case 'rolledBack':
        await outcome.uow.afterRequestedRollback();
        return outcome.result;
      case 'failed':
        try {
          await outcome.uow?.afterRollback(outcome.error);
        } catch (hookError) {
          throw new UnitOfWorkHooksError('the unit of work failed, and so did its rollback hooks', [
            outcome.error,
            hookError,
          ]);
        }
        throw outcome.error;
    }
  }

  private async transaction<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<Outcome<T>> {
    const runner = this.dataSource.createQueryRunner();
    let uow: UnitOfWork | undefined;
    let watch: AbortWatch | undefined;
    try {
      await runner.connect();
      watch = await AbortWatch.on(runner);
      await runner.startTransaction(this.options.isolation);
      const current = new UnitOfWork(runner.manager, this.bus);
      uow = current;
      const result = await runInUnitOfWork(current, () => fn(current));
      await current.registered();
      // Rolled back on purpose: nothing commits, whatever failed inside.
      if (current.rollbackRequested) {
        await runner.rollbackTransaction();
        return { kind: 'rolledBack', uow: current, result };
      }
      // A unit of work joined to this one threw and the error was caught: its work must not commit.
      current.throwIfNestedFailed();
      // A failed statement whose error was caught left the transaction aborted:
      // COMMIT would answer ROLLBACK, and the unit of work must not act committed.
      watch?.throwIfAborted();
      await current.beforeCommit();
      watch?.throwIfAborted();
      await runner.commitTransaction();
      return { kind: 'committed', uow: current, result };
    } catch (error) {
      // An async onRegister still running uses the connection: let it finish first.
      await uow?.registered().catch(() => {});
      if (runner.isTransactionActive) {
        await runner.rollbackTransaction().catch(() => {
          // The connection is broken; the database rolls back on its own.
        });
      }
      return { kind: 'failed', uow, error: watch === undefined ? error : watch.explain(error) };
    } finally {
      watch?.stop();
      await release(runner);
    }
  }
}

type Outcome<T> =
  | { readonly kind: 'committed' | 'rolledBack'; readonly uow: UnitOfWork; readonly result: T }
  | { readonly kind: 'failed'; readonly uow: UnitOfWork | undefined; readonly error: unknown };

// Releasing only returns the connection to the pool; a failure there must not
// turn a committed unit of work into a failed one.
async function release(runner: QueryRunner): Promise<void> {
  if (!runner.isReleased) await runner.release().catch(() => {});
}

/** Runs `fn` in a unit of work on `options.dataSource`; see {@link UnitOfWorkManager.run}. */
export function withUnitOfWork<T>(
  options: UnitOfWorkOptions | UnitOfWorkManager,
  fn: (uow: UnitOfWork) => Promise<T>,
): Promise<T> {
  const manager = options instanceof UnitOfWorkManager ? options : new UnitOfWorkManager(options);
  return manager.run(fn);
}
