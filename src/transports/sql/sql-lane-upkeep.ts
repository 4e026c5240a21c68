import type { SqlRunner } from './sql-db.js';
import { letGo } from './sql-lane-head.js';
import { type LaneRecord, laneColumns, laneFromRecord } from './sql-lane-row.js';
import { forUpdate, type LaneContext, LaneTx, laneTransaction, type WakeSignal } from './sql-lane-tx.js';

/** Lanes handed back or queued per upkeep call, at most; the rest go on the next call. */
const UPKEEP_LIMIT = 1_000;

/**
 * A worker's upkeep of the lanes (`ordered-maintain.lua`): renews its lease
 * to `leaseMs` from now; hands the lanes of workers whose lease ended back
 * to the queue (their ownerships end, so another worker resumes each lane at
 * its current event, and a worker that was only stalled finds its steps
 * `lost`) and removes those workers once they own nothing; queues lanes
 * whose retry is due and sync lanes whose gap wait is over. Lanes another
 * transaction holds are left for the next call (`SKIP LOCKED`), and their
 * expired owner stays until then.
 *
 * With nothing due (the usual case) it is one short transaction that only
 * renews the lease, without the counters row; expired workers that own
 * nothing are then removed by a second one.
 */
export async function maintainLanes(ctx: LaneContext, worker: string, leaseMs: number): Promise<void> {
  const expired = await laneTransaction(ctx, (tx, signal) => upkeep(ctx, tx, signal, worker, leaseMs, false));
  if (expired) await laneTransaction(ctx, (tx, signal) => upkeep(ctx, tx, signal, worker, leaseMs, true));
}

/** One upkeep transaction; resolves to whether expired workers are left to remove (`sweep` removes them). */
async function upkeep(
  ctx: LaneContext,
  tx: SqlRunner,
  signal: WakeSignal,
  worker: string,
  leaseMs: number,
  sweep: boolean,
): Promise<boolean> {
  const { lanes, workers } = ctx.tables;
  const now = ctx.db.now;
  const records = await tx.query<LaneRecord>(
    `SELECT ${laneColumns()} FROM ${lanes}
     WHERE bus = ? AND ((retry_at IS NOT NULL AND retry_at <= ${now})
       OR (gap_until IS NOT NULL AND gap_until <= ${now})
       OR (owner IS NOT NULL AND owner <> ? AND owner IN (
         SELECT worker FROM ${workers} WHERE bus = ? AND lease_until <= ${now})))
     ORDER BY lane LIMIT ?${forUpdate(ctx.db, true)}`,
    [ctx.bus, worker, ctx.bus, UPKEEP_LIMIT],
  );
  if (records.length === 0 && !sweep) {
    // Only the lease: no ownership changes, so no need for the counters row.
    const [renewed] = await tx.query<{ expired: unknown }>(
      `INSERT INTO ${workers} (bus, worker, lease_until) VALUES (?, ?, ${now} + ?)
       ON CONFLICT (bus, worker) DO UPDATE SET lease_until = excluded.lease_until
       RETURNING (SELECT COUNT(*) FROM ${workers} WHERE bus = ? AND worker <> ? AND lease_until <= ${now}) AS expired`,
      [ctx.bus, worker, leaseMs, ctx.bus, worker],
    );
    return Number(renewed?.expired ?? 0) > 0;
  }
  // The counters row before this worker's own row: every transaction that changes owners or removes workers does so.
  const t = await LaneTx.open(tx, ctx, signal);
  await tx.execute(
    `INSERT INTO ${workers} (bus, worker, lease_until) VALUES (?, ?, ?)
     ON CONFLICT (bus, worker) DO UPDATE SET lease_until = excluded.lease_until`,
    [ctx.bus, worker, t.now + leaseMs],
  );
  const rows = records.map(laneFromRecord);
  const leases = await t.leases(rows.flatMap((row) => (row.owner === undefined ? [] : [row.owner])));
  for (const row of rows) {
    if (row.owner !== undefined && row.owner !== worker && (leases.get(row.owner) ?? Infinity) <= t.now) {
      // Its ownership ends here; another worker resumes the lane at its current event.
      letGo(t, row);
      t.enqueue(row);
    }
    if (row.retryAt !== undefined && row.retryAt <= t.now) {
      row.retryAt = undefined;
      t.changed(row);
      t.enqueue(row);
    }
    if (row.gapUntil !== undefined && row.gapUntil <= t.now) {
      row.gapUntil = undefined;
      t.changed(row);
      t.enqueue(row);
    }
  }
  await t.finish();
  // Gone once they own nothing: a lane still owned by one (held by another transaction) keeps it for the next call.
  await tx.execute(
    `DELETE FROM ${workers} WHERE bus = ? AND worker <> ? AND lease_until <= ?
     AND worker NOT IN (SELECT owner FROM ${lanes} WHERE bus = ? AND owner IS NOT NULL)`,
    [ctx.bus, worker, t.now, ctx.bus],
  );
  return false;
}

/**
 * A worker leaves (`ordered-leave.lua`): the lanes it owns go back to the
 * queue at once and its lease ends. Its row stays, expired, until an upkeep
 * removes it.
 */
export function leaveLanes(ctx: LaneContext, worker: string): Promise<void> {
  const { lanes, workers } = ctx.tables;
  return laneTransaction(ctx, async (tx, signal) => {
    const records = await tx.query<LaneRecord>(
      `SELECT ${laneColumns()} FROM ${lanes} WHERE bus = ? AND owner = ? ORDER BY lane${forUpdate(ctx.db, false)}`,
      [ctx.bus, worker],
    );
    const t = await LaneTx.open(tx, ctx, signal);
    for (const row of records.map(laneFromRecord)) {
      if (row.owner !== worker) continue;
      letGo(t, row);
      t.enqueue(row);
    }
    await tx.execute(
      `INSERT INTO ${workers} (bus, worker, lease_until) VALUES (?, ?, 0)
       ON CONFLICT (bus, worker) DO UPDATE SET lease_until = 0`,
      [ctx.bus, worker],
    );
    await t.finish();
  });
}
