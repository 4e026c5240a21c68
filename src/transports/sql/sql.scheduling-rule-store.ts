import type { HandlerJobQueue } from '../../handlers/handler-job-queue.js';
import type { SchedulingRuleStore } from '../../scheduling/scheduling-rule-store.js';
import type { SqlDb } from './sql-db.js';

const notYet = (..._args: unknown[]): never => {
  throw new Error('SqlSchedulingRuleStore: not written yet');
};

/** STUB (to be written): the `SchedulingRuleStore` port on tables of rules, parked work and dropped counts. */
export class SqlSchedulingRuleStore implements SchedulingRuleStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly jobs: HandlerJobQueue,
  ) {}
  setRule = notYet;
  removeRule = notYet;
  listRules = notYet;
  park = notYet;
  unpark = notYet;
  parkedHandlers = notYet;
  parkedCount = notYet;
  countDropped = notYet;
  droppedCount = notYet;
}
