/**
 * What the tests of units of work on the SQL transport share: a business
 * table (`tx_records`) to write in the unit of work, row counts read
 * through `SqlDb`, and the statements one unit of work's transaction sent
 * (from a {@link StatementRecorder} given to the DataSources).
 */
import type { DataSource, QueryRunner } from 'typeorm';
import type { UnitOfWork } from '../../src/index.js';
import { SqlDb } from '../../src/transports/sql/index.js';
import type { StatementRecorder } from './sql-statements.js';

/** Creates the business table `tx_records (recid)` on `dataSource`. */
export async function createRecordsTable(dataSource: DataSource): Promise<void> {
  const db = new SqlDb(dataSource);
  await db.execute(`CREATE TABLE IF NOT EXISTS ${db.table('tx_records')} (recid varchar(64) PRIMARY KEY)`);
}

/** Writes the business row of `recid` in `uow`'s transaction. */
export async function insertRecord(uow: UnitOfWork, recid: string): Promise<void> {
  const db = new SqlDb(uow.manager.connection);
  await db.within(uow.manager).execute(`INSERT INTO ${db.table('tx_records')} (recid) VALUES (?)`, [recid]);
}

/** Rows of `table` on `dataSource` matching `where` (with `?` placeholders), read outside any transaction. */
export async function countRows(
  dataSource: DataSource,
  table: string,
  where = '1 = 1',
  params: readonly unknown[] = [],
): Promise<number> {
  const db = new SqlDb(dataSource);
  const [row] = await db.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM ${db.table(table)} WHERE ${where}`,
    params,
  );
  return Number(row?.n ?? 0);
}

/** The rows a bus `bus` holds on `dataSource`: its events, dedupe ids, and the outbox rows of `eventIds`. */
export async function busRows(
  dataSource: DataSource,
  bus: string,
  eventIds: readonly string[],
): Promise<{ events: number; ids: number; outbox: number }> {
  const marks = eventIds.map(() => '?').join(', ');
  return {
    events: await countRows(dataSource, 'commitbus_events', 'bus = ?', [bus]),
    ids: await countRows(dataSource, 'commitbus_event_ids', 'bus = ?', [bus]),
    outbox:
      eventIds.length === 0
        ? 0
        : await countRows(dataSource, 'commitbus_outbox', `event_id IN (${marks})`, eventIds),
  };
}

/**
 * Marks where one unit of work's statements start and end in `recorder`:
 * call {@link TransactionWindow.open} first thing in the unit of work (its
 * BEGIN was sent) and {@link TransactionWindow.close} from an `onCommit`
 * hook (its COMMIT was sent); {@link TransactionWindow.statements} are then
 * what its transaction ran, in order (on SQLite the one connection runs
 * nothing else meanwhile: the transaction gate).
 */
export class TransactionWindow {
  private start = -1;
  private end = -1;
  private runner: QueryRunner | undefined;

  constructor(private readonly recorder: StatementRecorder) {}

  /** Call inside the unit of work, before its work. */
  open(uow: UnitOfWork): void {
    this.runner = uow.manager.queryRunner;
    this.start = this.recorder.all().length;
  }

  /** An operation whose `onCommit` closes the window (register it in the unit of work). */
  closer(): { onCommit(): void } {
    return {
      onCommit: () => {
        this.end = this.recorder.all().length;
      },
    };
  }

  /** The statements the transaction ran, from {@link open} to its COMMIT. */
  statements(): string[] {
    const end = this.end === -1 ? undefined : this.end;
    return this.recorder
      .all()
      .slice(this.start, end)
      .filter((s) => s.runner === this.runner)
      .map((s) => s.sql);
  }
}
