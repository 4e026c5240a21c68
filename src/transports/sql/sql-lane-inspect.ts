import type { LaneState, OrderingState, StoredLaneEvent } from '../../ordering/ordering-state.js';
import type { HaltReason } from '../../ordering/ordering-store.js';
import type { SqlRunner } from './sql-db.js';
import {
  emptyLaneRow,
  type LaneRecord,
  type LaneRow,
  laneColumns,
  laneFromRecord,
  num,
} from './sql-lane-row.js';
import type { LaneContext } from './sql-lane-tx.js';
import { placeholders } from './sql-placeholders.js';

/** Names per `IN (...)` list. */
const CHUNK = 500;

/** Events waiting in lanes (halted lanes' included). */
export async function pendingLaneEvents(ctx: LaneContext): Promise<number> {
  const [row] = await ctx.db.query<{ n: unknown }>(
    `SELECT COUNT(*) AS n FROM ${ctx.tables.events} WHERE bus = ?`,
    [ctx.bus],
  );
  return Number(row?.n ?? 0);
}

/** Events waiting in halted lanes. */
export async function pendingInHaltedLanes(ctx: LaneContext): Promise<number> {
  const { lanes, events } = ctx.tables;
  const [row] = await ctx.db.query<{ n: unknown }>(
    `SELECT COUNT(*) AS n FROM ${events} e JOIN ${lanes} l ON l.bus = e.bus AND l.lane = e.lane
     WHERE e.bus = ? AND l.halted_at IS NOT NULL`,
    [ctx.bus],
  );
  return Number(row?.n ?? 0);
}

/**
 * The state of `lanes` and `workers` at one instant (see
 * `OrderingStore.inspect`): read in one transaction, a `REPEATABLE READ`
 * snapshot on PostgreSQL.
 */
export function inspectLanes(
  ctx: LaneContext,
  lanes: Iterable<string>,
  workers: Iterable<string>,
): Promise<OrderingState> {
  const laneList = [...new Set(lanes)];
  const workerList = [...new Set(workers)];
  return ctx.db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.execute('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const t = ctx.tables;
    const [scalars] = await tx.query<{ now: unknown; seq: unknown; pending: unknown }>(
      `SELECT ${ctx.db.now} AS now, (SELECT seq FROM ${t.counters} WHERE bus = ?) AS seq,
         (SELECT COUNT(*) FROM ${t.events} WHERE bus = ?) AS pending`,
      [ctx.bus, ctx.bus],
    );
    const leases = await tx.query<{ worker: string; lease_until: unknown }>(
      `SELECT worker, lease_until FROM ${t.workers} WHERE bus = ?`,
      [ctx.bus],
    );
    // The queued lanes, the lanes the workers own and the lanes asked for, in one read.
    const rows = (
      await chunked(tx, laneList.length > 0 ? laneList : [''], (names) => [
        `SELECT ${laneColumns()} FROM ${t.lanes} WHERE bus = ? AND (queued_at IS NOT NULL OR lane IN (${placeholders(names.length)})
           ${workerList.length > 0 ? `OR owner IN (${placeholders(workerList.length)})` : ''})`,
        [ctx.bus, ...names, ...workerList],
      ])
    ).map((r) => laneFromRecord(r as LaneRecord));
    const events = await chunked(tx, laneList, (names) => [
      `SELECT lane, position, payload, seq, prev FROM ${t.events} WHERE bus = ? AND lane IN (${placeholders(names.length)})`,
      [ctx.bus, ...names],
    ]);
    const byLane = new Map(rows.map((row) => [row.lane, row]));
    const stored = new Map<string, Map<number, StoredLaneEvent>>(laneList.map((lane) => [lane, new Map()]));
    for (const e of events)
      stored.get(String(e.lane))?.set(Number(e.position), storedEvent(String(e.lane), e));
    const newestFirst = (at: (row: LaneRow) => number | undefined) => (a: LaneRow, b: LaneRow) =>
      (at(b) ?? 0) - (at(a) ?? 0) || (a.lane < b.lane ? 1 : a.lane > b.lane ? -1 : 0);
    const unique = [...byLane.values()];
    return {
      now: Number(scalars?.now),
      ready: unique
        .filter((row) => row.queuedAt !== undefined)
        .sort(newestFirst((row) => row.queuedAt))
        .map((row) => row.lane),
      leases: new Map(leases.map((r) => [r.worker, Number(r.lease_until)])),
      taken: new Map(
        workerList.map((w) => [
          w,
          unique
            .filter((row) => row.owner === w)
            .sort(newestFirst((row) => row.ownedAt))
            .map((row) => row.lane),
        ]),
      ),
      seq: Number(scalars?.seq ?? 0),
      pending: Number(scalars?.pending ?? 0),
      lanes: new Map(
        laneList.map((lane) => [
          lane,
          laneState(byLane.get(lane) ?? emptyLaneRow(lane), stored.get(lane) ?? new Map()),
        ]),
      ),
    };
  });
}

/** Runs a statement per chunk of `names` and concatenates the rows. */
async function chunked(
  tx: SqlRunner,
  names: readonly string[],
  statement: (names: readonly string[]) => [string, unknown[]],
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < names.length; i += CHUNK) {
    const [sql, params] = statement(names.slice(i, i + CHUNK));
    out.push(...(await tx.query<Record<string, unknown>>(sql, params)));
  }
  return out;
}

function storedEvent(lane: string, e: Record<string, unknown>): StoredLaneEvent {
  const payload = String(e.payload);
  if (!lane.startsWith('a|')) return { payload };
  const prev = num(e.prev);
  return prev === undefined ? { payload, seq: Number(e.seq) } : { payload, seq: Number(e.seq), prev };
}

function laneState(row: LaneRow, events: ReadonlyMap<number, StoredLaneEvent>): LaneState {
  const cur = row.cur;
  return {
    tail: row.tail,
    next: row.next ?? 1,
    last: row.last,
    owner: row.owner,
    queued: row.queuedAt !== undefined,
    current:
      cur === undefined
        ? undefined
        : {
            position: cur.position,
            seq: cur.seq,
            prev: cur.prev,
            attemptsMade: cur.attemptsMade,
            failures: JSON.parse(cur.failures),
            from: cur.from,
            skipped: cur.skipped === undefined ? undefined : (JSON.parse(cur.skipped) as HaltReason),
            deliveries: cur.deliveries,
          },
    halt: row.halt === undefined ? undefined : (JSON.parse(row.halt) as HaltReason),
    halted: row.haltedAt !== undefined,
    retryAt: row.retryAt,
    events,
  };
}
