import type { DeadLetter } from '../../dead-letters/dead-letter.js';
import { decodeDeadLetter, encodeDeadLetter, readLetter } from '../../dead-letters/dead-letter-codec.js';
import {
  type DeadLetterFilter,
  type DeadLetterStore,
  type DeadLetterVersion,
  matchesDeadLetterFilter,
} from '../../dead-letters/dead-letter-store.js';
import type { CorruptDeadLetterError } from '../../dead-letters/errors/corrupt-dead-letter.error.js';
import { SqlDeadLetterEntity } from './schema/dead-letter.entity.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';

/** The filter fields that are columns of `commitbus_dead_letters`, by column. */
const FILTER_COLUMNS = [
  ['handler', 'handler'],
  ['handling_key', 'handlingKey'],
  ['event_id', 'eventId'],
  ['kind', 'kind'],
  ['reason', 'reason'],
] as const;

/**
 * `DeadLetterStore` on the `commitbus_dead_letters` table: each letter
 * encoded in `data`, with the fields filters select on as columns beside it.
 * Listing selects on the columns in SQL and checks each decoded letter
 * again, so a row whose columns were edited by hand lists as its letter says.
 */
export class SqlDeadLetterStore implements DeadLetterStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
  ) {}

  /** `commitbus_dead_letters`, qualified by the DataSource's schema. */
  get table(): string {
    return sqlTableName(this.db, SqlDeadLetterEntity);
  }

  async add(letters: readonly DeadLetter[]): Promise<void> {
    await this.addWith(this.db, letters);
  }

  /** {@link SqlDeadLetterStore.add} inside a transaction someone else holds: the letters exist exactly when it commits. */
  async addWith(runner: SqlRunner, letters: readonly DeadLetter[]): Promise<void> {
    // One statement may not name a row twice on PostgreSQL: the last letter of an id wins.
    const unique = [...new Map(letters.map((l) => [l.id, l])).values()];
    if (unique.length === 0) return;
    const params = unique.flatMap((l) => [
      this.bus,
      l.id,
      l.deadAt.getTime(),
      l.handler ?? null,
      l.handlingKey ?? null,
      l.eventId ?? null,
      l.kind,
      l.reason,
      encodeDeadLetter(l),
    ]);
    await runner.execute(
      `INSERT INTO ${this.table} (bus, id, dead_at, handler, handling_key, event_id, kind, reason, data)
       VALUES ${unique.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (bus, id) DO UPDATE SET dead_at = excluded.dead_at, handler = excluded.handler,
         handling_key = excluded.handling_key, event_id = excluded.event_id, kind = excluded.kind,
         reason = excluded.reason, data = excluded.data`,
      params,
    );
  }

  async list(
    filter: DeadLetterFilter = {},
    onCorrupt?: (error: CorruptDeadLetterError) => void,
  ): Promise<DeadLetter[]> {
    const where = ['bus = ?'];
    const params: unknown[] = [this.bus];
    for (const [column, field] of FILTER_COLUMNS) {
      const value = filter[field];
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    if (filter.since !== undefined) {
      where.push('dead_at >= ?');
      params.push(filter.since.getTime());
    }
    if (filter.until !== undefined) {
      where.push('dead_at < ?');
      params.push(filter.until.getTime());
    }
    const rows = await this.db.query<{ id: string; data: string }>(
      `SELECT id, data FROM ${this.table} WHERE ${where.join(' AND ')} ORDER BY dead_at, id`,
      params,
    );
    const found: DeadLetter[] = [];
    for (const row of rows) {
      if (filter.limit !== undefined && found.length >= filter.limit) break;
      const letter = readLetter(row.data, row.id, onCorrupt);
      if (letter !== undefined && matchesDeadLetterFilter(letter, filter)) found.push(letter);
    }
    return found;
  }

  async get(id: string): Promise<DeadLetter | undefined> {
    const rows = await this.db.query<{ data: string }>(
      `SELECT data FROM ${this.table} WHERE bus = ? AND id = ?`,
      [this.bus, id],
    );
    const row = rows[0];
    return row === undefined ? undefined : decodeDeadLetter(row.data, id);
  }

  async remove(letters: readonly (string | DeadLetterVersion)[]): Promise<number> {
    if (letters.length === 0) return 0;
    return this.db.transaction(async (tx) => {
      let removed = 0;
      for (const ref of letters) {
        removed +=
          typeof ref === 'string'
            ? await tx.execute(`DELETE FROM ${this.table} WHERE bus = ? AND id = ?`, [this.bus, ref])
            : await tx.execute(`DELETE FROM ${this.table} WHERE bus = ? AND id = ? AND dead_at = ?`, [
                this.bus,
                ref.id,
                ref.deadAt.getTime(),
              ]);
      }
      return removed;
    });
  }
}
