import type { HandlerJobQueue } from '../../handlers/handler-job-queue.js';
import type { SqlDb } from './sql-db.js';
import type { SqlWakeups } from './sql-wakeups.js';

const notYet = (..._args: unknown[]): never => {
  throw new Error('SqlHandlerJobQueue: not written yet');
};

/** STUB (to be written): the `HandlerJobQueue` port on the `commitbus_jobs` table. */
export class SqlHandlerJobQueue implements HandlerJobQueue {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly wakeups: SqlWakeups,
  ) {}
  enqueue = notYet;
  hasUnfinished = notYet;
  counts = notYet;
}
