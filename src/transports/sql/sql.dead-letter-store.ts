import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import type { SqlDb } from './sql-db.js';

const notYet = (..._args: unknown[]): never => {
  throw new Error('SqlDeadLetterStore: not written yet');
};

/** STUB (to be written): the `DeadLetterStore` port on the `commitbus_dead_letters` table. */
export class SqlDeadLetterStore implements DeadLetterStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
  ) {}
  add = notYet;
  list = notYet;
  get = notYet;
  remove = notYet;
}
