import type { TxTally } from './tx-tally.js';

/**
 * One system on the transactional path: each unit of work is one PostgreSQL
 * transaction inserting a business row and its event or job, and a worker
 * in this process runs a no-op handler for it.
 */
export interface TxSide {
  /** Name in the report. */
  readonly label: string;
  /** One line on how the side is set up, for the report. */
  readonly description: string;
  /** Where producers stamp commits and handlers stamp runs. */
  readonly tally: TxTally;
  /** Creates the side's schema and tables once, as the admin of `url`. */
  prepare(url: string): Promise<void>;
  /** Opens pools and starts the worker, connected as the user of `url`. */
  open(url: string): Promise<void>;
  /** Runs one unit of work with this id; stamps `tally.committed(unit)` once its COMMIT resolved. */
  unit(unit: number): Promise<void>;
  /** Stops the worker and closes pools. */
  close(): Promise<void>;
  /** Drops everything `prepare` created, as the admin of `url`. */
  teardown(url: string): Promise<void>;
}
