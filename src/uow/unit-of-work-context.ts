import { AsyncLocalStorage } from 'node:async_hooks';
import type { UnitOfWork } from './unit-of-work.js';

const storage = new AsyncLocalStorage<UnitOfWork>();

/**
 * The unit of work active in the current async context, if any: one whose
 * transaction has not ended (also one marked with `rollback()`, which a unit
 * of work started inside it joins rather than committing on its own).
 */
export function currentUnitOfWork(): UnitOfWork | undefined {
  const uow = storage.getStore();
  return uow?.inTransaction ? uow : undefined;
}

/** Runs `fn` with `uow` as the current unit of work. */
export function runInUnitOfWork<T>(uow: UnitOfWork, fn: () => T): T {
  return storage.run(uow, fn);
}
