import type { DataSource, QueryRunner } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel.js';
import type { EventBus } from '../bus/event-bus.js';
import { UnitOfWork } from './unit-of-work.js';
import { currentUnitOfWork, runInUnitOfWork } from './unit-of-work-context.js';

/** What a unit of work needs. */
export interface UnitOfWorkOptions {
  /** The TypeORM DataSource whose transactions units of work wrap. */
  dataSource: DataSource;
  /** Where events registered with `SendEventOp` are published. */
  bus: EventBus;
  /** Transaction isolation level; the database's default when absent. */
  isolation?: IsolationLevel;
}

/**
 * Starts units of work on one DataSource and bus. A unit of work started while
 * another on the same DataSource is active joins it: only the outermost
 * commits, and nothing is published before it does.
 */
export class UnitOfWorkManager {
  constructor(readonly options: UnitOfWorkOptions) {}

  /**
   * Runs `fn` in a unit of work: commits when it resolves, rolls back when it
   * throws (and rethrows). After commit, runs the operations' commit hooks.
   */
  async run<T>(fn: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const active = currentUnitOfWork();
    if (active !== undefined && active.manager.connection === this.options.dataSource) {
      return fn(active);
    }
    const runner = this.options.dataSource.createQueryRunner();
    await runner.connect();
    let uow: UnitOfWork | undefined;
    let result: T;
    try {
      await runner.startTransaction(this.options.isolation);
      const current = new UnitOfWork(runner.manager, this.options.bus);
      uow = current;
      result = await runInUnitOfWork(current, () => fn(current));
      await runner.commitTransaction();
    } catch (error) {
      if (runner.isTransactionActive) {
        await runner.rollbackTransaction().catch(() => {
          // The connection is broken; the database rolls back on its own.
        });
      }
      await release(runner);
      try {
        await uow?.afterRollback(error);
      } catch (hookError) {
        throw new AggregateError(
          [error, hookError],
          'the unit of work failed, and so did its rollback hooks',
          {
            cause: error,
          },
        );
      }
      throw error;
    }
    await release(runner);
    await uow.afterCommit();
    return result;
  }
}

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
