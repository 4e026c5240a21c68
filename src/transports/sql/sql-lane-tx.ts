import { SqlLaneEntity } from './schema/lane.entity.js';
import { SqlLaneCounterEntity } from './schema/lane-counter.entity.js';
import { SqlLaneEventEntity } from './schema/lane-event.entity.js';
import { SqlLaneWorkerEntity } from './schema/lane-worker.entity.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import {
  type LaneRecord,
  type LaneRow,
  laneColumns,
  laneFromRecord,
  laneUpdate,
  num,
} from './sql-lane-row.js';
import { placeholders } from './sql-placeholders.js';
import { sqlTableName } from './sql-table-name.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** The ordering store's tables, qualified by the DataSource's schema. */
export interface SqlLaneTables {
  readonly lanes: string;
  readonly events: string;
  readonly workers: string;
  readonly counters: string;
}

/** The tables of {@link SqlLaneTables} on `db`. */
export function laneTables(db: SqlDb): SqlLaneTables {
  return {
    lanes: sqlTableName(db, SqlLaneEntity),
    events: sqlTableName(db, SqlLaneEventEntity),
    workers: sqlTableName(db, SqlLaneWorkerEntity),
    counters: sqlTableName(db, SqlLaneCounterEntity),
  };
}

/** What every part of the SQL ordering store works with. */
export interface LaneContext {
  readonly db: SqlDb;
  readonly bus: string;
  readonly tables: SqlLaneTables;
  /** How long a sync lane waits for a missing position before it re-bases (0: for ever). */
  readonly gapWaitMs: number;
  readonly wakeups: SqlWakeups;
}

/** An event stored in a lane (on async lanes with the sync lane's `seq` and `prev`). */
export interface StoredEvent {
  readonly payload: string;
  readonly seq: number | undefined;
  readonly prev: number | undefined;
}

/** Whether a transaction queued a lane: this process's waiting workers are woken after it commits. */
export interface WakeSignal {
  wake: boolean;
}

/**
 * PostgreSQL's deadlock and serialization failures, and SQLite's busy
 * database (another process held the write lock past the busy timeout):
 * the transaction is run again.
 */
const RERUN_CODES: ReadonlySet<string> = new Set(['40P01', '40001', 'SQLITE_BUSY']);
/** Runs of one transaction at most. */
const MAX_RUNS = 6;

function isRerunnable(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | undefined;
  return RERUN_CODES.has(String(e?.code)) || RERUN_CODES.has(String(e?.driverError?.code));
}

/**
 * Runs `fn` in one short transaction (`BEGIN IMMEDIATE` on SQLite), again
 * (up to {@link MAX_RUNS} times, after a short random wait) when the
 * database refuses it for a reason another run may not meet (see
 * {@link RERUN_CODES}); wakes this process's waiting workers after the
 * commit if it queued a lane.
 */
export async function laneTransaction<T>(
  ctx: LaneContext,
  fn: (tx: SqlRunner, signal: WakeSignal) => Promise<T>,
): Promise<T> {
  for (let run = 1; ; run++) {
    const signal: WakeSignal = { wake: false };
    try {
      const result = await ctx.db.transaction((tx) => fn(tx, signal));
      if (signal.wake) ctx.wakeups.local('lanes');
      return result;
    } catch (error) {
      if (run >= MAX_RUNS || !isRerunnable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * run));
    }
  }
}

/** The row-lock clause of a `SELECT` on PostgreSQL (SQLite's write transaction holds the whole database). */
export function forUpdate(db: SqlDb, skipLocked: boolean): string {
  if (db.dialect !== 'postgres') return '';
  return skipLocked ? ' FOR UPDATE SKIP LOCKED' : ' FOR UPDATE';
}

/**
 * Locks the rows of `lanes` (sorted, so two transactions never lock them
 * in opposite orders), first creating the rows of `create` that are not
 * there; resolves to the rows there are.
 */
export async function lockLanes(
  tx: SqlRunner,
  ctx: LaneContext,
  lanes: Iterable<string>,
  create: Iterable<string> = [],
): Promise<LaneRow[]> {
  const names = [...new Set(lanes)].sort();
  const missing = [...new Set(create)].sort();
  if (missing.length > 0) {
    await tx.execute(
      `INSERT INTO ${ctx.tables.lanes} (bus, lane, tail) VALUES ${missing.map(() => '(?, ?, 0)').join(', ')}
       ON CONFLICT (bus, lane) DO NOTHING`,
      missing.flatMap((lane) => [ctx.bus, lane]),
    );
  }
  if (names.length === 0) return [];
  const records = await tx.query<LaneRecord>(
    `SELECT ${laneColumns()} FROM ${ctx.tables.lanes} WHERE bus = ? AND lane IN (${placeholders(names.length)})
     ORDER BY lane${forUpdate(ctx.db, false)}`,
    [ctx.bus, ...names],
  );
  return records.map(laneFromRecord);
}

/**
 * A worker-side change of the lanes, inside one transaction, after the
 * lanes it changes were locked: it locks the bus's counters row (so
 * ownerships and leases change one transaction at a time), reads the
 * database's clock once (`now`), and writes the rows it changed back at
 * {@link LaneTx.finish}.
 */
export class LaneTx {
  private readonly dirty = new Set<LaneRow>();
  private readonly cache = new Map<string, StoredEvent | undefined>();
  private counted = false;

  private constructor(
    readonly tx: SqlRunner,
    readonly ctx: LaneContext,
    readonly now: number,
    private seq: number,
    private rebases: number,
    private readonly signal: WakeSignal,
  ) {}

  /** Locks the counters row of the bus (creating it) and reads the clock. */
  static async open(tx: SqlRunner, ctx: LaneContext, signal: WakeSignal): Promise<LaneTx> {
    const [row] = await tx.query<{ seq: unknown; rebases: unknown; now: unknown }>(
      `INSERT INTO ${ctx.tables.counters} (bus, seq, rebases) VALUES (?, 0, 0)
       ON CONFLICT (bus) DO UPDATE SET bus = excluded.bus
       RETURNING seq, rebases, ${ctx.db.now} AS now`,
      [ctx.bus],
    );
    return new LaneTx(tx, ctx, Number(row?.now), Number(row?.seq ?? 0), Number(row?.rebases ?? 0), signal);
  }

  /** `row` changed: written back at {@link LaneTx.finish}. */
  changed(row: LaneRow): void {
    this.dirty.add(row);
  }

  /** Queues `row` for a worker to take, unless it is queued already. */
  enqueue(row: LaneRow): void {
    if (row.queuedAt !== undefined) return;
    row.queuedAt = this.now;
    this.changed(row);
    this.signal.wake = true;
  }

  /** The next `seq` of the bus. */
  nextSeq(): number {
    this.counted = true;
    return ++this.seq;
  }

  /** One more re-base. */
  countRebase(): void {
    this.counted = true;
    this.rebases++;
  }

  /** The lease ends of those of `workers` that have a row. */
  async leases(workers: Iterable<string>): Promise<Map<string, number>> {
    const names = [...new Set(workers)];
    if (names.length === 0) return new Map();
    const rows = await this.tx.query<{ worker: string; lease_until: unknown }>(
      `SELECT worker, lease_until FROM ${this.ctx.tables.workers}
       WHERE bus = ? AND worker IN (${placeholders(names.length)})`,
      [this.ctx.bus, ...names],
    );
    return new Map(rows.map((r) => [r.worker, Number(r.lease_until)]));
  }

  /** Reads the events at these lanes' positions in one statement, for {@link LaneTx.event}. */
  async prefetch(wanted: readonly (readonly [string, number])[]): Promise<void> {
    const fresh = wanted.filter(([lane, position]) => !this.cache.has(key(lane, position)));
    for (let i = 0; i < fresh.length; i += 200) {
      const chunk = fresh.slice(i, i + 200);
      const rows = await this.tx.query<{ lane: string; position: unknown } & Record<string, unknown>>(
        `SELECT lane, position, payload, seq, prev FROM ${this.ctx.tables.events}
         WHERE bus = ? AND (${chunk.map(() => '(lane = ? AND position = ?)').join(' OR ')})`,
        [this.ctx.bus, ...chunk.flat()],
      );
      for (const [lane, position] of chunk) this.cache.set(key(lane, position), undefined);
      for (const r of rows) this.cache.set(key(r.lane, Number(r.position)), storedOf(r));
    }
  }

  /** The event `lane` holds at `position`. */
  async event(lane: string, position: number): Promise<StoredEvent | undefined> {
    if (!this.cache.has(key(lane, position))) await this.prefetch([[lane, position]]);
    return this.cache.get(key(lane, position));
  }

  /** The first position `lane` holds after `position`. */
  async firstHeldAfter(lane: string, position: number): Promise<number | undefined> {
    const [row] = await this.tx.query<{ first: unknown }>(
      `SELECT MIN(position) AS first FROM ${this.ctx.tables.events} WHERE bus = ? AND lane = ? AND position > ?`,
      [this.ctx.bus, lane, position],
    );
    return num(row?.first);
  }

  /** Puts an event in `lane` at `position` (a fan-out to an async lane), in place of one there, as `HSET` does on Redis. */
  async insertEvent(lane: string, position: number, event: StoredEvent): Promise<void> {
    await this.tx.execute(
      `INSERT INTO ${this.ctx.tables.events} (bus, lane, position, payload, seq, prev) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (bus, lane, position) DO UPDATE SET payload = excluded.payload, seq = excluded.seq, prev = excluded.prev`,
      [this.ctx.bus, lane, position, event.payload, event.seq ?? null, event.prev ?? null],
    );
    this.cache.set(key(lane, position), event);
  }

  /** Removes the event of `lane` at `position` (done). */
  async deleteEvent(lane: string, position: number): Promise<void> {
    await this.tx.execute(
      `DELETE FROM ${this.ctx.tables.events} WHERE bus = ? AND lane = ? AND position = ?`,
      [this.ctx.bus, lane, position],
    );
    this.cache.set(key(lane, position), undefined);
  }

  /** Writes the changed rows and counters back, and sends a wake-up (PostgreSQL) if a lane was queued. */
  async finish(): Promise<void> {
    for (const row of this.dirty) {
      const { sql, params } = laneUpdate(this.ctx.tables.lanes, this.ctx.bus, row);
      await this.tx.execute(sql, params);
    }
    this.dirty.clear();
    if (this.counted) {
      await this.tx.execute(`UPDATE ${this.ctx.tables.counters} SET seq = ?, rebases = ? WHERE bus = ?`, [
        this.seq,
        this.rebases,
        this.ctx.bus,
      ]);
    }
    if (this.signal.wake) await this.ctx.wakeups.notifyIn(this.tx, 'lanes');
  }
}

function key(lane: string, position: number): string {
  return `${position}\u0000${lane}`;
}

function storedOf(r: Record<string, unknown>): StoredEvent {
  return { payload: String(r.payload), seq: num(r.seq), prev: num(r.prev) };
}
