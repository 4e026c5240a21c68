import type { ScheduleTickStore } from '../../scheduling/schedule-tick-store.js';
import { SqlScheduleTickEntity } from './schema/schedule-tick.entity.js';
import type { SqlDb } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';

/**
 * `ScheduleTickStore` on `commitbus_schedule_ticks`: a claim is one upsert
 * that writes the row only when it holds no tick at or after the claimed
 * one, so it changes one row exactly when it wins. On PostgreSQL racing
 * claims of one row wait for each other's row lock and the later ones see
 * the tick already stored; on SQLite statements run one at a time.
 */
export class SqlScheduleTickStore implements ScheduleTickStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
  ) {}

  async claim(name: string, tickAt: Date): Promise<boolean> {
    const table = sqlTableName(this.db, SqlScheduleTickEntity);
    const changed = await this.db.execute(
      `INSERT INTO ${table} AS t (bus, name, tick_at) VALUES (?, ?, ?)
       ON CONFLICT (bus, name) DO UPDATE SET tick_at = excluded.tick_at WHERE t.tick_at < excluded.tick_at`,
      [this.bus, name, tickAt.getTime()],
    );
    return changed > 0;
  }

  async lastTick(name: string): Promise<Date | undefined> {
    const table = sqlTableName(this.db, SqlScheduleTickEntity);
    const [row] = await this.db.query<{ tick_at: string | number }>(
      `SELECT tick_at FROM ${table} WHERE bus = ? AND name = ?`,
      [this.bus, name],
    );
    return row === undefined ? undefined : new Date(Number(row.tick_at));
  }
}
