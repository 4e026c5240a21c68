import { AsyncLocalStorage } from 'node:async_hooks';
import type { UnitOfWork } from './unit-of-work.js';

const storage = new AsyncLocalStorage<UnitOfWork>();

/** The unit of work active in the current async context, if any. */
export function currentUnitOfWork(): UnitOfWork | undefined {
  const uow = storage.getStore();
  return uow?.isOpen ? uow : undefined;
}

/** Runs `fn` with `uow` as the current unit of work. */
export function runInUnitOfWork<T>(uow: UnitOfWork, fn: () => T): T {
  return storage.run(uow, fn);
}
