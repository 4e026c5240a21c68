import type { LaneEvent } from '../../ordering/ordering-store.js';
import { claim } from './sql-lane-head.js';
import { type LaneRecord, laneColumns, laneFromRecord } from './sql-lane-row.js';
import { forUpdate, type LaneContext, LaneTx, laneTransaction } from './sql-lane-tx.js';

/** What a take did: the events handed out, and how many lanes it took from the queue (with or without an event). */
export interface Taken {
  readonly events: LaneEvent[];
  readonly lanes: number;
}

/**
 * Takes up to `max` queued lanes, oldest first, and claims them for
 * `worker` (see `claim` in `sql-lane-head.ts`), in one transaction; only
 * under a live lease (else nothing changes). On PostgreSQL a lane another
 * transaction holds (a publisher appending to it, another worker claiming
 * it) is passed over (`SKIP LOCKED`): it is taken on a later call.
 */
export function takeLanes(ctx: LaneContext, worker: string, max: number): Promise<Taken> {
  if (max <= 0) return Promise.resolve({ events: [], lanes: 0 });
  return laneTransaction(ctx, async (tx, signal) => {
    const records = await tx.query<LaneRecord>(
      `SELECT ${laneColumns()} FROM ${ctx.tables.lanes}
       WHERE bus = ? AND queued_at IS NOT NULL
       ORDER BY queued_at, lane LIMIT ?${forUpdate(ctx.db, true)}`,
      [ctx.bus, max],
    );
    // Nothing queued: no need to lock the counters row.
    if (records.length === 0) return { events: [], lanes: 0 };
    const rows = records.map(laneFromRecord);
    const t = await LaneTx.open(tx, ctx, signal);
    const leases = await t.leases([
      worker,
      ...rows.flatMap((row) => (row.owner === undefined ? [] : [row.owner])),
    ]);
    if (!((leases.get(worker) ?? 0) > t.now)) return { events: [], lanes: 0 };
    await t.prefetch(rows.map((row) => [row.lane, row.cur?.position ?? row.next ?? 1] as const));
    const events: LaneEvent[] = [];
    for (const row of rows) {
      const reply = await claim(t, worker, row, leases);
      if (typeof reply === 'object') events.push(reply);
    }
    await t.finish();
    return { events, lanes: rows.length };
  });
}
