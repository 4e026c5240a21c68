import {
  firstMinuteOf,
  HISTORY_MINUTES,
  type HistoryReading,
  type HistorySample,
  type HistoryStore,
  MINUTE_MS,
} from '../../metrics/history-store.js';
import { SqlHistoryEntity } from './schema/history.entity.js';
import type { SqlDb } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';

/** A row as the driver returns it (bigints as strings on PostgreSQL). */
interface HistoryRow {
  minute: number | string;
  published: number | string;
  handled: number | string;
  failed: number | string;
  retried: number | string;
  dead_lettered: number | string;
  backlog: number | string | null;
  backlog_age_ms: number | string | null;
}

/** The larger of the row's `column` and the new one's, a null on either side losing (`greatest` on both databases). */
const larger = (column: string) =>
  `CASE WHEN excluded.${column} IS NULL OR t.${column} >= excluded.${column} THEN t.${column} ELSE excluded.${column} END`;

/**
 * `HistoryStore` on `commitbus_history`: a record is one upsert into the
 * minute of the database's clock ({@link SqlDb.now}), adding the counters
 * and keeping the larger gauges, then a delete of the minutes past the
 * retention; a read takes the clock, then the minutes from the first it covers.
 */
export class SqlHistoryStore implements HistoryStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
  ) {}

  async record(sample: HistorySample): Promise<void> {
    const table = sqlTableName(this.db, SqlHistoryEntity);
    const minute = `((${this.db.now} / ${MINUTE_MS}) * ${MINUTE_MS})`;
    await this.db.execute(
      `INSERT INTO ${table} AS t (bus, minute, published, handled, failed, retried, dead_lettered, backlog, backlog_age_ms)
       VALUES (?, ${minute}, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (bus, minute) DO UPDATE SET published = t.published + excluded.published,
         handled = t.handled + excluded.handled, failed = t.failed + excluded.failed,
         retried = t.retried + excluded.retried, dead_lettered = t.dead_lettered + excluded.dead_lettered,
         backlog = ${larger('backlog')}, backlog_age_ms = ${larger('backlog_age_ms')}`,
      [
        this.bus,
        whole(sample.published),
        whole(sample.handled),
        whole(sample.failed),
        whole(sample.retried),
        whole(sample.deadLettered),
        gauge(sample.backlog),
        gauge(sample.backlogAgeMs),
      ],
    );
    await this.db.execute(`DELETE FROM ${table} WHERE bus = ? AND minute < ${minute} - ?`, [
      this.bus,
      (HISTORY_MINUTES - 1) * MINUTE_MS,
    ]);
  }

  async read(sinceMs: number): Promise<HistoryReading> {
    const table = sqlTableName(this.db, SqlHistoryEntity);
    const [clock] = await this.db.query<{ now: number | string }>(`SELECT ${this.db.now} AS now`);
    const now = Number(clock?.now);
    const rows = await this.db.query<HistoryRow>(
      `SELECT minute, published, handled, failed, retried, dead_lettered, backlog, backlog_age_ms
       FROM ${table} WHERE bus = ? AND minute >= ? ORDER BY minute`,
      [this.bus, firstMinuteOf(now, sinceMs)],
    );
    return {
      now: new Date(now),
      minutes: rows.map((row) => ({
        minute: new Date(Number(row.minute)),
        published: Number(row.published),
        handled: Number(row.handled),
        failed: Number(row.failed),
        retried: Number(row.retried),
        deadLettered: Number(row.dead_lettered),
        backlog: row.backlog === null ? null : Number(row.backlog),
        backlogAgeMs: row.backlog_age_ms === null ? null : Number(row.backlog_age_ms),
      })),
    };
  }
}

function whole(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0;
}

function gauge(n: number | null): number | null {
  return n === null || !Number.isFinite(n) ? null : Math.max(0, Math.round(n));
}
