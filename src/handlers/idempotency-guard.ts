import type { UnitOfWork } from '../uow/unit-of-work.js';

/** Runs an idempotent handler's work once per (event, handler); see `IdempotentRunner`. */
export interface IdempotencyGuard {
  /** Runs `fn` in a unit of work recording the completion, unless one committed already. */
  run(eventId: string, handler: string, fn: (uow: UnitOfWork) => Promise<void>): Promise<'ran' | 'skipped'>;
}
