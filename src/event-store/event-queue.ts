import type { EntityManager } from 'typeorm';
import { InternalError } from '../support/errors/internal.error.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type {
  AuditEntry,
  HistoryEvent,
  StepFailure,
  StoreEvent,
  StoreEventStatus,
  SubEventRecord,
} from './store-event.js';
import { QUEUE_ROW, type StoreTables, WRITER_ROW } from './store-tables.js';

/** An event ready to be queued: serialized data and its size. */
export interface PreparedEvent {
  /** The event's type. */
  readonly type: string;
  /** Its data as it comes back from JSON. */
  readonly data: unknown;
  /** Its data as stored. */
  readonly json: string;
  /** Epoch ms of the dispatch. */
  readonly ts: number;
  /** Kept when history is pruned. */
  readonly important: boolean;
  /** Bytes of `json` in UTF-8. */
  readonly bytes: number;
}

/** A queued event as the writer reads it. */
export interface QueuedEvent extends StoreEvent {
  /** Failed attempts so far. */
  readonly attempts: number;
  /** Kept by pruning. */
  readonly important: boolean;
  /** Operator actions taken on it so far. */
  readonly audit: readonly AuditEntry[];
}

/** What the writer stores for a handled event, serialized (see {@link finishedEvent}). */
export interface FinishedEvent {
  /** Its version. */
  readonly v: number;
  /** `handled`, `ignored` (unknown type) or `rejected` (a reducer's `esFail`). */
  readonly status: StoreEventStatus;
  /** Its type after preprocessing (a preprocessor may give its canonical form). */
  readonly type: string;
  /** JSON of the data after preprocessing. */
  readonly data: string;
  /** JSON of the results, or null. */
  readonly result: string | null;
  /** JSON of the sub-events, or null. */
  readonly events: string | null;
  /** JSON of a rejection, or null. */
  readonly error: string | null;
}

/**
 * Serializes what handling event `v` produced for its history row. Throws
 * when JSON cannot carry it (a BigInt or a cycle in a result, say): the
 * writer then fails that event alone, as any failing step, instead of the
 * whole batch.
 */
export function finishedEvent(
  v: number,
  status: StoreEventStatus,
  outcome: { type: string; data: unknown; result: unknown; events: readonly SubEventRecord[] },
  rejection?: StepFailure,
): FinishedEvent {
  const json = (what: string, value: unknown): string => {
    try {
      return JSON.stringify(value) ?? 'null';
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new EventStoreUsageError(
        `the event's ${what} cannot be stored in history as JSON: ${reason}. Return JSON-safe values from reducers and derivers (no BigInt, no cycles)`,
        { cause: error },
      );
    }
  };
  return {
    v,
    status,
    type: outcome.type,
    data: json('data (after preprocessing)', outcome.data),
    result: outcome.result === undefined ? null : json('result', outcome.result),
    events: json('sub-events', outcome.events),
    error: rejection === undefined ? null : JSON.stringify(rejection),
  };
}

// SQLite takes at most 32,766 parameters a statement; 6 a row.
const INSERT_CHUNK = 1_000;

/** The queue and history table operations, in SQL on the caller's transaction. */
export class EventQueue {
  constructor(readonly tables: StoreTables) {}

  /** Creates the two state rows when missing. */
  async ensureState(manager: EntityManager): Promise<void> {
    const { state, p } = this.bound();
    for (const id of [QUEUE_ROW, WRITER_ROW]) {
      await manager.query(
        `INSERT INTO ${state} (id, queued, handled) VALUES (${p(1)}, 0, 0) ON CONFLICT (id) DO NOTHING`,
        [id],
      );
    }
  }

  /**
   * Queues `events` in the caller's transaction and returns their versions.
   * Taking the versions locks the queue row until that transaction ends, so
   * versions have no gaps and commit in order.
   */
  async append(manager: EntityManager, events: readonly PreparedEvent[]): Promise<number[]> {
    if (this.tables.dialect === 'postgres') return this.appendOnPostgres(manager, events);
    const { state, p } = this.bound();
    const take = () =>
      this.tables.rows<{ queued: string | number }>(
        manager,
        `UPDATE ${state} SET queued = queued + ${p(1)} WHERE id = ${p(2)} RETURNING queued`,
        [events.length, QUEUE_ROW],
      );
    let [row] = await take();
    if (row === undefined) {
      // A fresh table: the state rows are made on first use.
      await this.ensureState(manager);
      [row] = await take();
    }
    if (row === undefined) throw new InternalError('the event store state row could not be created');
    const first = Number(row.queued) - events.length + 1;
    const versions = events.map((_, i) => first + i);
    for (let start = 0; start < events.length; start += INSERT_CHUNK) {
      const chunk = events.slice(start, start + INSERT_CHUNK);
      const params: unknown[] = [];
      const values = chunk.map((event, i) => {
        const n = params.length;
        params.push(
          versions[start + i],
          event.type,
          event.ts,
          event.json,
          Number(event.important),
          event.json.length,
        );
        return `(${p(n + 1)}, ${p(n + 2)}, ${p(n + 3)}, ${p(n + 4)}, 'queued', 0, ${p(n + 5)}, ${p(n + 6)})`;
      });
      await manager.query(
        `INSERT INTO ${this.tables.events} (v, type, ts, data, status, attempts, important, size) VALUES ${values.join(', ')}`,
        params,
      );
    }
    return versions;
  }

  // One statement, so a dispatch outside a transaction is one round trip:
  // take the versions from the queue row and insert the rows with them.
  private async appendOnPostgres(
    manager: EntityManager,
    events: readonly PreparedEvent[],
  ): Promise<number[]> {
    const run = () =>
      this.tables.rows<{ v: string | number }>(
        manager,
        `WITH taken AS (UPDATE ${this.tables.state} SET queued = queued + $1 WHERE id = $2 RETURNING queued)
         INSERT INTO ${this.tables.events} (v, type, ts, data, status, attempts, important, size)
         SELECT taken.queued - $1 + e.n, e.type, e.ts, e.data, 'queued', 0, e.important, e.size
         FROM taken, unnest($3::text[], $4::bigint[], $5::text[], $6::boolean[], $7::integer[]) WITH ORDINALITY AS e(type, ts, data, important, size, n)
         RETURNING v`,
        [
          events.length,
          QUEUE_ROW,
          events.map((e) => e.type),
          events.map((e) => e.ts),
          events.map((e) => e.json),
          events.map((e) => e.important),
          events.map((e) => e.bytes),
        ],
      );
    let rows = await run();
    if (rows.length === 0) {
      // A fresh table: the state rows are made on first use.
      await this.ensureState(manager);
      rows = await run();
    }
    if (rows.length !== events.length)
      throw new InternalError('the event store state row could not be created');
    return rows.map((r) => Number(r.v)).sort((a, b) => a - b);
  }

  /** The handled version, and whether an event waits after it (one round trip for the writer's turn). */
  async peek(manager: EntityManager): Promise<{ handled: number; more: boolean }> {
    const { p } = this.bound();
    const [row] = await this.tables.rows<{ handled: string | number; more: boolean | number }>(
      manager,
      `SELECT s.handled, EXISTS (SELECT 1 FROM ${this.tables.events} e WHERE e.v = s.handled + 1) AS more
       FROM ${this.tables.state} s WHERE s.id = ${p(1)}`,
      [WRITER_ROW],
    );
    return { handled: Number(row?.handled ?? 0), more: row?.more === true || row?.more === 1 };
  }

  /** The last version queued and the last handled. */
  async versions(manager: EntityManager): Promise<{ queued: number; handled: number }> {
    const rows = await this.tables.rows<{ id: string; queued: string | number; handled: string | number }>(
      manager,
      `SELECT id, queued, handled FROM ${this.tables.state}`,
    );
    const queue = rows.find((r) => r.id === QUEUE_ROW);
    const writer = rows.find((r) => r.id === WRITER_ROW);
    return { queued: Number(queue?.queued ?? 0), handled: Number(writer?.handled ?? 0) };
  }

  /**
   * Up to `limit` queued events after version `after`, in order; with
   * `lock`, their rows are locked to the end of the caller's transaction
   * (PostgreSQL), so an operator's change waits for the writer.
   */
  async next(manager: EntityManager, after: number, limit: number, lock = false): Promise<QueuedEvent[]> {
    const { p } = this.bound();
    const rows = await this.tables.rows<RawRow>(
      manager,
      `SELECT v, type, ts, data, attempts, important, audit FROM ${this.tables.events} WHERE v > ${p(1)} ORDER BY v LIMIT ${p(2)}${lock && this.tables.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
      [after, limit],
    );
    return rows.map((r) => ({
      v: Number(r.v),
      type: r.type,
      ts: Number(r.ts),
      data: JSON.parse(r.data),
      attempts: Number(r.attempts),
      important: r.important === true || r.important === 1,
      audit: r.audit === null ? [] : (JSON.parse(r.audit) as AuditEntry[]),
    }));
  }

  /** Stores what handling did to each event. */
  async finish(manager: EntityManager, finished: readonly FinishedEvent[]): Promise<void> {
    if (finished.length === 0) return;
    const { p } = this.bound();
    if (this.tables.dialect === 'postgres') {
      // One statement for the batch.
      await manager.query(
        `UPDATE ${this.tables.events} AS e SET status = d.status, type = d.type, data = d.data, result = d.result, events = d.events, error = d.error
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS d(v, status, type, data, result, events, error)
         WHERE e.v = d.v`,
        [
          finished.map((f) => f.v),
          finished.map((f) => f.status),
          finished.map((f) => f.type),
          finished.map((f) => f.data),
          finished.map((f) => f.result),
          finished.map((f) => f.events),
          finished.map((f) => f.error),
        ],
      );
      return;
    }
    for (const f of finished) {
      await manager.query(
        `UPDATE ${this.tables.events} SET status = ${p(1)}, type = ${p(2)}, data = ${p(3)}, result = ${p(4)}, events = ${p(5)}, error = ${p(6)} WHERE v = ${p(7)}`,
        [f.status, f.type, f.data, f.result, f.events, f.error, f.v],
      );
    }
  }

  /**
   * On SQLite, takes the database's write lock at the start of the writer's
   * transaction (a write that changes nothing). A transaction that reads
   * first gets SQLITE_BUSY at once, without waiting, when its first write
   * finds another process writing; one that writes first waits its turn.
   */
  async lockForWrite(manager: EntityManager): Promise<void> {
    if (this.tables.dialect !== 'sqlite') return;
    await manager.query(`UPDATE ${this.tables.state} SET handled = handled WHERE id = ?`, [WRITER_ROW]);
  }

  /**
   * Moves the handled version from `from` to `to`; false when it was not at
   * `from` (another writer moved it: the caller must roll back).
   */
  async advance(manager: EntityManager, from: number, to: number): Promise<boolean> {
    const { p, state } = this.bound();
    const rows = await this.tables.rows(
      manager,
      `UPDATE ${state} SET handled = ${p(1)} WHERE id = ${p(2)} AND handled = ${p(3)} RETURNING handled`,
      [to, WRITER_ROW, from],
    );
    return rows.length === 1;
  }

  /** Records a failed attempt of event `v`. */
  async recordFailure(manager: EntityManager, v: number, failure: StepFailure): Promise<void> {
    const { p } = this.bound();
    await manager.query(
      `UPDATE ${this.tables.events} SET error = ${p(1)}, attempts = attempts + 1 WHERE v = ${p(2)}`,
      [JSON.stringify(failure), v],
    );
  }

  /** Locks the row of event `v` to the end of the caller's transaction (PostgreSQL; SQLite's writes are serial). */
  async lock(manager: EntityManager, v: number): Promise<void> {
    if (this.tables.dialect !== 'postgres') return;
    await manager.query(`SELECT v FROM ${this.tables.events} WHERE v = $1 FOR UPDATE`, [v]);
  }

  /** The history rows of `versions` (those that exist). */
  async history(manager: EntityManager, versions: readonly number[]): Promise<HistoryEvent[]> {
    if (versions.length === 0) return [];
    const { p } = this.bound();
    const rows = await this.tables.rows<RawRow>(
      manager,
      `SELECT * FROM ${this.tables.events} WHERE v IN (${versions.map((_, i) => p(i + 1)).join(', ')}) ORDER BY v`,
      versions,
    );
    return rows.map(toHistory);
  }

  /** History rows with `from <= v <= to`, in order. */
  async range(manager: EntityManager, from: number, to: number): Promise<HistoryEvent[]> {
    const { p } = this.bound();
    const rows = await this.tables.rows<RawRow>(
      manager,
      `SELECT * FROM ${this.tables.events} WHERE v >= ${p(1)} AND v <= ${p(2)} ORDER BY v`,
      [from, to],
    );
    return rows.map(toHistory);
  }

  private bound() {
    return { state: this.tables.state, p: (n: number) => this.tables.p(n) };
  }
}

interface RawRow {
  v: string | number;
  type: string;
  ts: string | number;
  data: string;
  status: StoreEventStatus;
  result: string | null;
  events: string | null;
  error: string | null;
  attempts: string | number;
  important: boolean | number;
  audit: string | null;
}

function toHistory(r: RawRow): HistoryEvent {
  const error = r.error === null ? undefined : (JSON.parse(r.error) as StepFailure);
  return {
    v: Number(r.v),
    type: r.type,
    ts: Number(r.ts),
    data: JSON.parse(r.data),
    status: r.status,
    ...(r.result === null ? {} : { result: JSON.parse(r.result) }),
    events: r.events === null ? [] : (JSON.parse(r.events) as SubEventRecord[]),
    ...(error === undefined ? {} : { error }),
    attempts: Number(r.attempts),
    important: r.important === true || r.important === 1,
    audit: r.audit === null ? [] : (JSON.parse(r.audit) as AuditEntry[]),
  };
}
