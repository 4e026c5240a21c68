import { decodeGroupCounts } from '../../dead-letters/dead-letter-groups.js';
import type { DeadLetterCounts } from '../../dead-letters/dead-letter-store.js';
import { SqlDeadLetterCountEntity } from './schema/dead-letter-count.entity.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';

/** The row of `commitbus_dead_letter_counts` holding the letters dropped so far (no group is named so). */
const DROPPED = 'dropped';

/**
 * The dead letters' counts of one bus in `commitbus_dead_letter_counts`,
 * changed only inside the transaction that writes or removes the letters.
 */
export class SqlDeadLetterCounts {
  /** `commitbus_dead_letter_counts`, qualified by the DataSource's schema. */
  readonly table: string;

  constructor(
    db: SqlDb,
    private readonly bus: string,
  ) {
    this.table = sqlTableName(db, SqlDeadLetterCountEntity);
  }

  /**
   * Locks the bus's counts until `tx` ends (the `dropped` row, written so it
   * exists): every dead-letter write of the bus takes it first, so two never
   * count the same letter at once. SQLite's transactions are one at a time already.
   */
  async lock(tx: SqlRunner): Promise<void> {
    await tx.execute(
      `INSERT INTO ${this.table} AS c (bus, grp, count) VALUES (?, ?, 0)
       ON CONFLICT (bus, grp) DO UPDATE SET count = c.count`,
      [this.bus, DROPPED],
    );
  }

  /** Adds each group's change (a group left with none is deleted), and `dropped` to the dropped count. */
  async apply(tx: SqlRunner, changes: ReadonlyMap<string, number>, dropped = 0): Promise<void> {
    const moved = [...changes].filter(([, by]) => by !== 0);
    if (dropped > 0) moved.push([DROPPED, dropped]);
    for (const [grp, by] of moved) {
      await tx.execute(
        `INSERT INTO ${this.table} AS c (bus, grp, count) VALUES (?, ?, ?)
         ON CONFLICT (bus, grp) DO UPDATE SET count = c.count + excluded.count`,
        [this.bus, grp, by],
      );
    }
    if (moved.length > 0)
      await tx.execute(`DELETE FROM ${this.table} WHERE bus = ? AND grp <> ? AND count <= 0`, [
        this.bus,
        DROPPED,
      ]);
  }

  /** The counts as they are: one row per group. */
  async read(runner: SqlRunner): Promise<DeadLetterCounts> {
    const rows = await runner.query<{ grp: string; count: unknown }>(
      `SELECT grp, count FROM ${this.table} WHERE bus = ?`,
      [this.bus],
    );
    const dropped = rows.find((r) => r.grp === DROPPED);
    return decodeGroupCounts(
      rows.filter((r) => r.grp !== DROPPED).map((r) => [r.grp, Number(r.count)] as const),
      Number(dropped?.count ?? 0),
    );
  }
}

/** Adds `by` to `group`'s change in `changes` (a letter counted in or out). */
export function countChange(changes: Map<string, number>, group: string | null, by: number): void {
  if (group !== null) changes.set(group, (changes.get(group) ?? 0) + by);
}
