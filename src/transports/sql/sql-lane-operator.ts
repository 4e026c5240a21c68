import type { LaneRebase, RebaseLog, RebaseReply, RebaseWhy } from '../../ordering/lane-rebase.js';
import type { HaltedLane, HaltReason } from '../../ordering/ordering-store.js';
import { recordRebase } from './sql-lane-gap.js';
import { laneEventOf } from './sql-lane-head.js';
import { type LaneRecord, laneColumns, laneFromRecord } from './sql-lane-row.js';
import { type LaneContext, LaneTx, laneTransaction, lockLanes } from './sql-lane-tx.js';

/** Halted lanes, oldest first, with their current event and how many events wait in each. */
export async function haltedLanes(ctx: LaneContext): Promise<HaltedLane[]> {
  const { lanes, events } = ctx.tables;
  const records = await ctx.db.query<LaneRecord & { payload: unknown; waiting: unknown }>(
    `SELECT ${laneColumns('l')}, e.payload AS payload,
       (SELECT COUNT(*) FROM ${events} w WHERE w.bus = l.bus AND w.lane = l.lane) AS waiting
     FROM ${lanes} l LEFT JOIN ${events} e ON e.bus = l.bus AND e.lane = l.lane AND e.position = l.cur_position
     WHERE l.bus = ? AND l.halted_at IS NOT NULL ORDER BY l.halted_at, l.lane`,
    [ctx.bus],
  );
  const out: HaltedLane[] = [];
  for (const record of records) {
    const row = laneFromRecord(record);
    if (row.cur === undefined || row.halt === undefined) continue;
    out.push({
      lane: row.lane,
      haltedAt: new Date(row.haltedAt ?? 0),
      why: JSON.parse(row.halt) as HaltReason,
      waiting: Number(record.waiting),
      event: laneEventOf(row.lane, { ...row.cur, skipped: undefined }, String(record.payload ?? '')),
    });
  }
  return out;
}

/**
 * Resumes halted lanes (`ordered-resume.lua`): `redrive` runs the halted
 * event again with fresh attempts, `skip` marks it so the worker that takes
 * it gives up its failed handler and goes on; either way its deliveries
 * start again. Resolves to how many of `names` were halted.
 */
export function resumeLanes(
  ctx: LaneContext,
  mode: 'redrive' | 'skip',
  names: readonly string[],
): Promise<number> {
  if (names.length === 0) return Promise.resolve(0);
  return laneTransaction(ctx, async (tx, signal) => {
    const rows = await lockLanes(tx, ctx, names);
    const t = await LaneTx.open(tx, ctx, signal);
    let resumed = 0;
    for (const row of rows) {
      if (row.haltedAt === undefined) continue;
      if (row.cur !== undefined) {
        row.cur =
          mode === 'skip'
            ? { ...row.cur, skipped: row.halt ?? '{}', deliveries: 0 }
            : { ...row.cur, attemptsMade: 0, failures: '[]', deliveries: 0 };
      }
      row.halt = undefined;
      row.haltedAt = undefined;
      t.changed(row);
      t.enqueue(row);
      resumed++;
    }
    await t.finish();
    return resumed;
  });
}

/** An operator's re-base of a sync lane (`ordered-rebase.lua`; see `OrderingStore.rebase`). */
export function rebaseLane(
  ctx: LaneContext,
  lane: string,
  position: number | undefined,
): Promise<RebaseReply> {
  return laneTransaction(ctx, async (tx, signal) => {
    const [row] = await lockLanes(tx, ctx, [lane]);
    // No row: no event ever came, no state.
    if (row === undefined) return { status: 'unknown' };
    if (row.cur !== undefined) return { status: 'busy', position: row.cur.position };
    const t = await LaneTx.open(tx, ctx, signal);
    const from = row.next ?? 1;
    const first = await t.firstHeldAfter(lane, Number.MIN_SAFE_INTEGER);
    if (first === undefined && row.next === undefined && row.numbering === undefined && row.tail === 0) {
      return { status: 'unknown' };
    }
    const to = position ?? first;
    if (to === undefined) return { status: 'empty' };
    if (first !== undefined && to > first) return { status: 'above', first };
    if (to < from) return { status: 'below', next: from };
    if (row.numbering === 'transport' && to > row.tail + 1) return { status: 'beyond', next: row.tail + 1 };
    recordRebase(t, row, from, to, 'operator');
    if (first !== undefined) t.enqueue(row);
    await t.finish();
    return { status: 'ok', from, to };
  });
}

/** The count of re-bases and the newest `limit` lanes' last ones, newest first. */
export async function rebasedLanes(ctx: LaneContext, limit: number): Promise<RebaseLog> {
  const { lanes, counters } = ctx.tables;
  const [count] = await ctx.db.query<{ rebases: unknown }>(`SELECT rebases FROM ${counters} WHERE bus = ?`, [
    ctx.bus,
  ]);
  const rows =
    limit > 0
      ? await ctx.db.query<Record<string, unknown>>(
          `SELECT lane, rebase_from, rebase_to, rebase_why, rebase_at FROM ${lanes}
           WHERE bus = ? AND rebase_at IS NOT NULL ORDER BY rebase_at DESC, lane DESC LIMIT ?`,
          [ctx.bus, limit],
        )
      : [];
  const recent: LaneRebase[] = rows.map((r) => ({
    lane: String(r.lane),
    from: Number(r.rebase_from),
    to: Number(r.rebase_to),
    why: String(r.rebase_why) as RebaseWhy,
    at: Number(r.rebase_at),
  }));
  return { count: Number(count?.rebases ?? 0), recent };
}
