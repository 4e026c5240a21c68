import type { DeadLetter } from '../../dead-letters/dead-letter.js';
import { decodeDeadLetter, encodeDeadLetter, readLetter } from '../../dead-letters/dead-letter-codec.js';
import { groupOf } from '../../dead-letters/dead-letter-groups.js';
import {
  type DeadLetterCounts,
  type DeadLetterFilter,
  type DeadLetterRetention,
  type DeadLetterStore,
  type DeadLetterStoreRetention,
  type DeadLetterVersion,
  matchesDeadLetterFilter,
} from '../../dead-letters/dead-letter-store.js';
import type { CorruptDeadLetterError } from '../../dead-letters/errors/corrupt-dead-letter.error.js';
import { SqlDeadLetterEntity } from './schema/dead-letter.entity.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import { countChange, SqlDeadLetterCounts } from './sql-dead-letter-counts.js';
import { sqlTableName } from './sql-table-name.js';

// Letters one call drops at most for its retention: keeps each transaction short; the next add drops the rest.
const DROP_BATCH = 1_000;

// Rows one list query reads at most: a page reads about its own size, a whole list its rows in steps.
const LIST_CHUNK = 500;

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
 * Each letter's group is in `count_group`, and the groups' counts in
 * `commitbus_dead_letter_counts`, changed in the transaction that writes or
 * removes the letters (see `SqlDeadLetterCounts`).
 */
export class SqlDeadLetterStore implements DeadLetterStore {
  private readonly groups: SqlDeadLetterCounts;
  private readonly retention: DeadLetterRetention;
  private readonly onDropped: ((count: number) => void) | undefined;

  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    options: DeadLetterStoreRetention = {},
  ) {
    this.groups = new SqlDeadLetterCounts(db, bus);
    this.retention = options.retention ?? { maxCount: 0, maxAgeMs: 0 };
    this.onDropped = options.onDropped;
  }

  /** `commitbus_dead_letters`, qualified by the DataSource's schema. */
  get table(): string {
    return sqlTableName(this.db, SqlDeadLetterEntity);
  }

  async add(letters: readonly DeadLetter[]): Promise<number> {
    if (letters.length === 0) return 0;
    return this.db.transaction((tx) => this.addWith(tx, letters));
  }

  /**
   * {@link SqlDeadLetterStore.add} inside a transaction someone else holds
   * (`runner`): the letters, their counts and the drops exist exactly when it commits.
   */
  async addWith(runner: SqlRunner, letters: readonly DeadLetter[]): Promise<number> {
    // One statement may not name a row twice on PostgreSQL: the last letter of an id wins.
    const unique = [...new Map(letters.map((l) => [l.id, l])).values()];
    if (unique.length === 0) return 0;
    await this.groups.lock(runner);
    const changes = new Map<string, number>();
    for (const old of await this.storedGroups(
      runner,
      unique.map((l) => l.id),
    ))
      countChange(changes, old.count_group, -1);
    for (const l of unique) countChange(changes, groupOf(l), 1);
    await this.upsert(runner, unique);
    const dropped = await this.dropBeyondRetention(runner, changes);
    await this.groups.apply(runner, changes, dropped);
    // Told before the transaction commits: a drop of a transaction that rolls back is logged too (rare, and harmless).
    if (dropped > 0) this.onDropped?.(dropped);
    return dropped;
  }

  counts(): Promise<DeadLetterCounts> {
    return this.groups.read(this.db);
  }

  private async storedGroups(runner: SqlRunner, ids: readonly string[]) {
    return runner.query<{ id: string; count_group: string | null }>(
      `SELECT id, count_group FROM ${this.table} WHERE bus = ? AND id IN (${ids.map(() => '?').join(', ')})`,
      [this.bus, ...ids],
    );
  }

  private async upsert(runner: SqlRunner, unique: readonly DeadLetter[]): Promise<void> {
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
      groupOf(l),
    ]);
    await runner.execute(
      `INSERT INTO ${this.table} (bus, id, dead_at, handler, handling_key, event_id, kind, reason, data, count_group)
       VALUES ${unique.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (bus, id) DO UPDATE SET dead_at = excluded.dead_at, handler = excluded.handler,
         handling_key = excluded.handling_key, event_id = excluded.event_id, kind = excluded.kind,
         reason = excluded.reason, data = excluded.data, count_group = excluded.count_group`,
      params,
    );
  }

  // Drops the letters older than the retention's age, then the oldest beyond its count; counts them out of `changes`.
  private async dropBeyondRetention(runner: SqlRunner, changes: Map<string, number>): Promise<number> {
    const { maxCount, maxAgeMs } = this.retention;
    const doomed: { id: string; count_group: string | null }[] = [];
    if (maxAgeMs > 0)
      doomed.push(
        ...(await runner.query<{ id: string; count_group: string | null }>(
          `SELECT id, count_group FROM ${this.table} WHERE bus = ? AND dead_at < ? ORDER BY dead_at, id LIMIT ?`,
          [this.bus, Date.now() - maxAgeMs, DROP_BATCH],
        )),
      );
    if (maxCount > 0) {
      const rows = await runner.query<{ n: unknown }>(
        `SELECT COUNT(*) AS n FROM ${this.table} WHERE bus = ?`,
        [this.bus],
      );
      const over = Math.min(Number(rows[0]?.n ?? 0) - doomed.length - maxCount, DROP_BATCH);
      if (over > 0)
        doomed.push(
          ...(await runner.query<{ id: string; count_group: string | null }>(
            `SELECT id, count_group FROM ${this.table} WHERE bus = ? ORDER BY dead_at, id LIMIT ? OFFSET ?`,
            [this.bus, over, doomed.length],
          )),
        );
    }
    for (const row of doomed) {
      await runner.execute(`DELETE FROM ${this.table} WHERE bus = ? AND id = ?`, [this.bus, row.id]);
      countChange(changes, row.count_group, -1);
    }
    return doomed.length;
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
    const newest = filter.order === 'newest';
    const [past, direction] = newest ? ['<', 'DESC'] : ['>', 'ASC'];
    const found: DeadLetter[] = [];
    // A chunk at a time, each after the last row of the one before (keyset paging): a page of 50 out of 10,000
    // letters reads about 50 rows, however many rows the decoded check then turns down.
    for (let cursor = filter.after; filter.limit === undefined || found.length < filter.limit; ) {
      const bound = cursor === undefined ? [] : [`(dead_at ${past} ? OR (dead_at = ? AND id ${past} ?))`];
      const at = cursor?.deadAt.getTime();
      const rows = await this.db.query<{ id: string; dead_at: unknown; data: string }>(
        `SELECT id, dead_at, data FROM ${this.table} WHERE ${[...where, ...bound].join(' AND ')}
         ORDER BY dead_at ${direction}, id ${direction} LIMIT ?`,
        [...params, ...(cursor === undefined ? [] : [at, at, cursor.id]), LIST_CHUNK],
      );
      for (const row of rows) {
        if (filter.limit !== undefined && found.length >= filter.limit) break;
        const letter = readLetter(row.data, row.id, onCorrupt);
        if (letter !== undefined && matchesDeadLetterFilter(letter, filter)) found.push(letter);
      }
      const last = rows.at(-1);
      if (last === undefined || rows.length < LIST_CHUNK) break;
      cursor = { id: last.id, deadAt: new Date(Number(last.dead_at)) };
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
      await this.groups.lock(tx);
      const changes = new Map<string, number>();
      let removed = 0;
      for (const ref of letters) {
        const [where, params] =
          typeof ref === 'string'
            ? ['bus = ? AND id = ?', [this.bus, ref]]
            : ['bus = ? AND id = ? AND dead_at = ?', [this.bus, ref.id, ref.deadAt.getTime()]];
        const [row] = await tx.query<{ count_group: string | null }>(
          `SELECT count_group FROM ${this.table} WHERE ${where}`,
          params,
        );
        if (row === undefined) continue;
        removed += await tx.execute(`DELETE FROM ${this.table} WHERE ${where}`, params);
        countChange(changes, row.count_group, -1);
      }
      await this.groups.apply(tx, changes);
      return removed;
    });
  }
}
