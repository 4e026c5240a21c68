import type { DataSource } from 'typeorm';
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
    try {
      await runner.startTransaction(this.options.isolation);
      const current = new UnitOfWork(runner.manager, this.options.bus);
      uow = current;
      const result = await runInUnitOfWork(current, () => fn(current));
      await runner.commitTransaction();
      await runner.release();
      await current.afterCommit();
      return result;
    } catch (error) {
      if (uow === undefined || uow.isOpen) {
        if (runner.isTransactionActive) {
          await runner.rollbackTransaction().catch(() => {
            // The connection is broken; the database rolls back on its own.
          });
        }
        if (!runner.isReleased) await runner.release();
        await uow?.afterRollback(error);
      }
      throw error;
    }
  }
}

/** Runs `fn` in a unit of work on `options.dataSource`; see {@link UnitOfWorkManager.run}. */
export function withUnitOfWork<T>(
  options: UnitOfWorkOptions | UnitOfWorkManager,
  fn: (uow: UnitOfWork) => Promise<T>,
): Promise<T> {
  const manager = options instanceof UnitOfWorkManager ? options : new UnitOfWorkManager(options);
  return manager.run(fn);
}
