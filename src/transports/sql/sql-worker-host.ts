import type { TransportWorker, WorkerRuntime } from '../../handlers/handler-worker.js';
import type { WorkerHost } from '../../handlers/worker-host.js';
import type { SqlDeadLetterStore } from './sql.dead-letter-store.js';
import type { SqlEventLog } from './sql.event-log.js';
import type { SqlHandlerJobQueue } from './sql.job-queue.js';
import type { SqlDb } from './sql-db.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** What the worker host runs on. */
export interface SqlWorkerHostDeps {
  readonly db: SqlDb;
  readonly bus: string;
  readonly log: SqlEventLog;
  readonly jobs: SqlHandlerJobQueue;
  readonly deadLetters: SqlDeadLetterStore;
  readonly wakeups: SqlWakeups;
  readonly pollMs: number;
}

/** STUB (to be written): drains over the event log and a runner of handler jobs, in this process. */
export class SqlWorkerHost implements WorkerHost {
  constructor(readonly deps: SqlWorkerHostDeps) {}
  async startWorker(_runtime: WorkerRuntime): Promise<TransportWorker> {
    throw new Error('SqlWorkerHost: not written yet');
  }
  /** Stops the worker, if one runs, waiting for what it runs. */
  async close(): Promise<void> {}
}
