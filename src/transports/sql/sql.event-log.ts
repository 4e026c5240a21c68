import { randomBytes } from 'node:crypto';
import type { AppendResult, LateOrderedEvent, OutgoingEvent } from '../../events/outgoing-event.js';
import type { EventLog, LogEntry } from '../../handlers/event-log.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import { SqlGroupAppend } from './sql-group-append.js';
import type { LaneAppender } from './sql-lane-append.js';
import { appendOnPostgres, type PgAppendRow } from './sql-pg-append.js';
import { placeholders } from './sql-placeholders.js';
import type { SqlWakeups } from './sql-wakeups.js';

/**
 * Opens the lanes of a publish's ordered events inside the publishing
 * transaction `tx`, before anything of it is written (refusing a batch that
 * numbers a lane otherwise than the lane does); `undefined` when none is
 * ordered. `SqlOrderingStore.openLanes`.
 */
export type LaneIntake = (
  tx: SqlRunner,
  events: readonly OutgoingEvent[],
) => Promise<LaneAppender | undefined>;

/** Rows per multi-row INSERT: 4 parameters each at most, far under SQLite's 32766 and PostgreSQL's 65535. */
const INSERT_CHUNK = 1_000;
/** Ids per `IN (...)` list of an acknowledgement. */
const ACK_CHUNK = 1_000;
/** Expired dedupe ids deleted per statement of a prune. */
const PRUNE_BATCH = 500;
/** Statements one prune runs at most (a backlog of expired ids is worked off over several prunes). */
const PRUNE_ROUNDS = 20;

interface ClaimedRow {
  readonly id: number | string;
  readonly payload: string;
  readonly deliveries: number | string;
}

/**
 * The `EventLog` port on the `commitbus_events` table, with the Redis
 * stream's semantics: an entry read by a drain is locked to it
 * (`locked_by`, `locked_at`) until acknowledged (deleted); an entry locked
 * longer than a drain's idle time can be claimed by another, counting a
 * delivery. Each claim sets a new lease token (`lease`) that its entry ids
 * carry (`<id>:<lease>`), so only the claim holding an entry acknowledges
 * it: a drain that stalled and was taken over deletes nothing. Delayed events are rows with a `deliver_at`, made deliverable
 * by {@link SqlEventLog.releaseDue}. Accepted ids are remembered in
 * `commitbus_event_ids` for the dedupe window. Times compared are the
 * database's clock.
 */
export class SqlEventLog implements EventLog {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly options: {
      readonly dedupeWindowMs: number;
      readonly wakeups: SqlWakeups;
      readonly lanes: LaneIntake;
    },
  ) {
    this.events = db.table('commitbus_events');
    this.ids = db.table('commitbus_event_ids');
    this.group =
      db.dialect === 'sqlite'
        ? new SqlGroupAppend(db, (tx, events) => this.appendWith(tx, events))
        : undefined;
  }

  /** On SQLite, appends that come together share a transaction. */
  private readonly group: SqlGroupAppend | undefined;

  /** `commitbus_events`, qualified by the DataSource's schema. */
  private readonly events: string;
  /** `commitbus_event_ids`, qualified by the DataSource's schema. */
  private readonly ids: string;
  /**
   * Appends in a transaction of its own (on SQLite one shared with the
   * appends that came meanwhile: `SqlGroupAppend`), then wakes this
   * process's drains (and lane workers, for ordered events).
   */
  async append(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    const result =
      this.group !== undefined
        ? await this.group.append(events)
        : await this.db.transaction((tx) => this.appendWith(tx, events));
    if (result.appended > 0) {
      this.options.wakeups.local('events');
      if (events.some((event) => event.lane !== undefined)) this.options.wakeups.local('lanes');
    }
    return result;
  }

  /**
   * Appends inside a transaction someone else holds (the unit of work's):
   * the events exist exactly when it commits. One statement per table for
   * up to `INSERT_CHUNK` events: the dedupe ids in one INSERT, the
   * rows in another; a second copy of an id in `events` is dropped as a
   * duplicate of the first.
   */
  async appendWith(tx: SqlRunner, events: readonly OutgoingEvent[]): Promise<AppendResult> {
    // First: the lanes are locked, and a batch they refuse leaves nothing written.
    const lanes = await this.options.lanes(tx, events);
    if (
      this.db.dialect === 'postgres' &&
      events.length <= INSERT_CHUNK &&
      events.every((e) => e.lane === undefined)
    )
      return this.appendInOne(tx, events);
    const accepted = await this.accept(tx, events);
    const now = Date.now();
    const rows: { event: OutgoingEvent; deliverAt: number | null }[] = [];
    const late: LateOrderedEvent[] = [];
    let appended = 0;
    let delayed = 0;
    let dropped = 0;
    for (const event of events) {
      // Deleted once taken: a later copy of the id in this batch is a duplicate.
      if (!event.skipDedupe && !accepted.delete(event.id)) {
        dropped++;
        continue;
      }
      if (event.lane !== undefined && lanes !== undefined) {
        const taken = await lanes.append(event.lane, event.payload, event.position);
        if (taken === true) appended++;
        else if (taken === false) dropped++;
        else {
          // Late: its id is forgotten, so publishing it again finds it late again.
          if (!event.skipDedupe) await this.forget(tx, event.id);
          late.push({ event, position: event.position ?? 0, rebase: taken });
        }
      } else if (event.deliverAt !== undefined && event.deliverAt > now) {
        rows.push({ event, deliverAt: event.deliverAt });
        delayed++;
      } else {
        rows.push({ event, deliverAt: null });
        appended++;
      }
    }
    await this.insert(tx, rows);
    await lanes?.finish();
    if (rows.some((row) => row.deliverAt === null)) await this.options.wakeups.notifyIn(tx, 'events');
    return late.length === 0 ? { appended, delayed, dropped } : { appended, delayed, dropped, late };
  }

  /**
   * {@link SqlEventLog.appendWith} of events of no lane on PostgreSQL: the
   * dedupe ids, the rows and the wake-up in one statement (`appendOnPostgres`).
   */
  private async appendInOne(tx: SqlRunner, events: readonly OutgoingEvent[]): Promise<AppendResult> {
    const now = Date.now();
    const seen = new Set<string>();
    const rows: PgAppendRow[] = events.map((event) => {
      const first = event.skipDedupe !== true && !seen.has(event.id);
      if (first) seen.add(event.id);
      const deliverAt = event.deliverAt !== undefined && event.deliverAt > now ? event.deliverAt : null;
      return { event, deliverAt, first };
    });
    const accepted = await appendOnPostgres(
      tx,
      {
        events: this.events,
        ids: this.ids,
        bus: this.bus,
        now: this.db.now,
        dedupeWindowMs: this.options.dedupeWindowMs,
        notify: this.options.wakeups.notification('events'),
      },
      rows,
    );
    let appended = 0;
    let delayed = 0;
    let dropped = 0;
    for (const { event, deliverAt, first } of rows) {
      if (event.skipDedupe !== true && !(first && accepted.has(event.id))) dropped++;
      else if (deliverAt !== null) delayed++;
      else appended++;
    }
    return { appended, delayed, dropped };
  }

  /**
   * Records the ids of `events` (those that go by the dedupe window) as
   * accepted for the window, in one multi-row INSERT per chunk; resolves to
   * the ids accepted now, leaving out those accepted within the window.
   */
  private async accept(tx: SqlRunner, events: readonly OutgoingEvent[]): Promise<Set<string>> {
    // Unique: PostgreSQL refuses an upsert that would change one row twice. Sorted: two transactions
    // upserting the same ids lock them in one order, so they wait for each other instead of deadlocking.
    const ids = [...new Set(events.filter((e) => !e.skipDedupe).map((e) => e.id))].sort();
    const accepted = new Set<string>();
    const now = this.db.now;
    for (let start = 0; start < ids.length; start += INSERT_CHUNK) {
      const chunk = ids.slice(start, start + INSERT_CHUNK);
      const rows = await tx.query<{ event_id: string }>(
        `INSERT INTO ${this.ids} (bus, event_id, expires_at)
         VALUES ${chunk.map(() => `(?, ?, ${now} + ?)`).join(', ')}
         ON CONFLICT (bus, event_id) DO UPDATE SET expires_at = excluded.expires_at
         WHERE ${this.ids}.expires_at <= ${now}
         RETURNING event_id`,
        chunk.flatMap((id) => [this.bus, id, this.options.dedupeWindowMs]),
      );
      for (const row of rows) accepted.add(row.event_id);
    }
    return accepted;
  }

  private async forget(tx: SqlRunner, eventId: string): Promise<void> {
    await tx.execute(`DELETE FROM ${this.ids} WHERE bus = ? AND event_id = ?`, [this.bus, eventId]);
  }

  /**
   * Deletes the bus's expired dedupe ids, oldest first, in statements of
   * `PRUNE_BATCH` that each commit on their own (`PRUNE_ROUNDS`
   * at most), never inside a publishing transaction: a worker's upkeep
   * (`SqlWorkerHost`) calls it. On PostgreSQL ids another prune is deleting
   * are skipped, not waited for, and rows are found by their address
   * (`ctid`), so the plan never depends on the table's statistics.
   * Resolves to how many it deleted.
   */
  async pruneExpiredIds(): Promise<number> {
    const picked =
      this.db.dialect === 'postgres'
        ? `ctid = ANY(ARRAY(SELECT ctid FROM ${this.ids} WHERE bus = ? AND expires_at <= ${this.db.now}
             ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED))`
        : `rowid IN (SELECT rowid FROM ${this.ids} WHERE bus = ? AND expires_at <= ${this.db.now}
             ORDER BY expires_at LIMIT ?)`;
    let deleted = 0;
    for (let round = 0; round < PRUNE_ROUNDS; round++) {
      const n = await this.db.execute(`DELETE FROM ${this.ids} WHERE ${picked}`, [this.bus, PRUNE_BATCH]);
      deleted += n;
      if (n < PRUNE_BATCH) break;
    }
    return deleted;
  }

  /** Multi-row INSERTs, in order, chunked under both databases' parameter limits. */
  private async insert(
    tx: SqlRunner,
    rows: readonly { event: OutgoingEvent; deliverAt: number | null }[],
  ): Promise<void> {
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      const chunk = rows.slice(start, start + INSERT_CHUNK);
      const values = chunk.map(() => `(?, ?, ?, ?, ${this.db.now}, 0)`).join(', ');
      const params = chunk.flatMap(({ event, deliverAt }) => [this.bus, event.id, event.payload, deliverAt]);
      await tx.execute(
        `INSERT INTO ${this.events} (bus, event_id, payload, deliver_at, created_at, deliveries) VALUES ${values}`,
        params,
      );
    }
  }

  /**
   * Makes up to `limit` due delayed events deliverable, in one statement
   * committed on its own; on PostgreSQL the same statement sends the events
   * wake-up when it released some.
   */
  async releaseDue(limit: number): Promise<number> {
    if (limit <= 0) return 0;
    const now = this.db.now;
    const release = `UPDATE ${this.events} SET deliver_at = NULL, created_at = ${now}
      WHERE id IN (SELECT id FROM ${this.events}
        WHERE bus = ? AND deliver_at IS NOT NULL AND deliver_at <= ${now}
        ORDER BY deliver_at, id LIMIT ?${this.skipLocked()})
      RETURNING id`;
    const released =
      this.db.dialect === 'postgres'
        ? await this.releaseNotifying(release, limit)
        : (await this.db.query(release, [this.bus, limit])).length;
    if (released > 0) this.options.wakeups.local('events');
    return released;
  }

  /** `release` and, when it released rows, the events wake-up, in one PostgreSQL statement. */
  private async releaseNotifying(release: string, limit: number): Promise<number> {
    const [row] = await this.db.query<{ n: number | string }>(
      `WITH released AS (${release}),
         woke AS (SELECT pg_notify(?, ?) FROM (SELECT 1 FROM released LIMIT 1) r)
       SELECT (SELECT COUNT(*) FROM released) AS n, (SELECT COUNT(*) FROM woke) AS w`,
      [this.bus, limit, ...this.options.wakeups.notification('events')],
    );
    return Number(row?.n ?? 0);
  }

  async delayed(): Promise<number> {
    return this.count('deliver_at IS NOT NULL');
  }

  async read(consumer: string, count: number, blockMs: number): Promise<LogEntry[]> {
    const first = await this.readNow(consumer, count);
    if (first.length > 0 || blockMs <= 0) return first;
    await this.options.wakeups.wait('events', blockMs);
    return this.readNow(consumer, count);
  }

  /** One claim of events not locked; a full batch wakes another drain of this process, as more may wait. */
  private async readNow(consumer: string, count: number): Promise<LogEntry[]> {
    const entries = await this.claim(consumer, count, 'locked_at IS NULL', []);
    if (entries.length === count) this.options.wakeups.local('events');
    return entries;
  }

  async claimStale(consumer: string, minIdleMs: number): Promise<LogEntry | undefined> {
    const [entry] = await this.claim(
      consumer,
      1,
      `locked_at IS NOT NULL AND locked_at <= ${this.db.now} - ?`,
      [minIdleMs],
    );
    return entry;
  }

  async hasStale(minIdleMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `SELECT id FROM ${this.events}
       WHERE bus = ? AND deliver_at IS NULL AND locked_at IS NOT NULL AND locked_at <= ${this.db.now} - ? LIMIT 1`,
      [this.bus, minIdleMs],
    );
    return rows.length > 0;
  }

  /** Locks up to `count` deliverable rows matching `where` to `consumer` in one statement, oldest first. */
  private async claim(
    consumer: string,
    count: number,
    where: string,
    params: readonly unknown[],
  ): Promise<LogEntry[]> {
    if (count <= 0) return [];
    const lease = randomBytes(12).toString('hex');
    // By ctid on PostgreSQL. Sound only while no statement updates a claimable row and leaves it
    // claimable: such a row, committed during this statement, is locked by the subquery (at its new
    // ctid) but invisible to the outer TID scan, so it is skipped and still uses up a LIMIT slot (found
    // at the next read, not lost). Claims and releaseDue never do; a future "unlock" must not.
    const rows = await this.db.query<ClaimedRow>(
      `UPDATE ${this.events} SET locked_by = ?, locked_at = ${this.db.now}, deliveries = deliveries + 1, lease = ?
       WHERE ${this.db.dialect === 'postgres' ? 'ctid = ANY(ARRAY(SELECT ctid' : 'id IN (SELECT id'} FROM ${this.events}
         WHERE bus = ? AND deliver_at IS NULL AND ${where}
         ORDER BY id LIMIT ?${this.skipLocked()})${this.db.dialect === 'postgres' ? ')' : ''}
       RETURNING id, payload, deliveries`,
      [consumer, lease, this.bus, ...params, count],
    );
    return rows
      .map((row) => ({ id: Number(row.id), payload: row.payload, deliveries: Number(row.deliveries) }))
      .sort((a, b) => a.id - b.id)
      .map(({ id, payload, deliveries }) => ({ entryId: `${id}:${lease}`, payload, deliveries }));
  }

  /** PostgreSQL's row locks let concurrent claims pass each other; SQLite's writes are serialized anyway. */
  private skipLocked(): string {
    return this.db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  }

  /** Deletes the entries whose claim (the lease in their id) still holds them; others are left to their new claim. */
  async ack(entryIds: readonly string[]): Promise<void> {
    const byLease = new Map<string, number[]>();
    for (const entryId of entryIds) {
      const [id, lease] = entryId.split(':');
      const n = Number(id);
      if (!Number.isSafeInteger(n) || lease === undefined || lease === '') continue;
      const ids = byLease.get(lease);
      if (ids === undefined) byLease.set(lease, [n]);
      else ids.push(n);
    }
    for (const [lease, ids] of byLease) {
      for (let start = 0; start < ids.length; start += ACK_CHUNK) {
        const chunk = ids.slice(start, start + ACK_CHUNK);
        await this.db.execute(
          `DELETE FROM ${this.events} WHERE id IN (${placeholders(chunk.length)}) AND lease = ?`,
          [...chunk, lease],
        );
      }
    }
  }

  async backlog(): Promise<number> {
    return this.count('deliver_at IS NULL');
  }

  async oldestAt(): Promise<Date | undefined> {
    const [row] = await this.db.query<{ at: number | string | null }>(
      `SELECT MIN(created_at) AS at FROM ${this.events} WHERE bus = ? AND deliver_at IS NULL`,
      [this.bus],
    );
    return row?.at === null || row?.at === undefined ? undefined : new Date(Number(row.at));
  }

  /** A no-op: rows carry their drain's name only while locked, so there is no consumer to forget. */
  async removeConsumer(_consumer: string): Promise<void> {}

  private async count(where: string): Promise<number> {
    const [row] = await this.db.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM ${this.events} WHERE bus = ? AND ${where}`,
      [this.bus],
    );
    return Number(row?.n ?? 0);
  }
}
