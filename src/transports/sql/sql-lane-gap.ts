import type { RebaseWhy } from '../../ordering/lane-rebase.js';
import type { LaneRow } from './sql-lane-row.js';
import { recordSkipped } from './sql-lane-skipped.js';
import type { LaneTx } from './sql-lane-tx.js';

/**
 * Re-bases `row` from the position it waited for to `to`: its `next`, its
 * last re-base, the positions skipped (`sql-lane-skipped.ts`), the count of
 * re-bases; a wait for a missing position ends. As the Redis scripts'
 * re-bases (`ordered-steps.lua`, `ordered-rebase.lua`).
 */
export function recordRebase(t: LaneTx, row: LaneRow, from: number, to: number, why: RebaseWhy): void {
  row.next = to;
  row.rebase = { lane: row.lane, from, to, why, at: t.now };
  recordSkipped(row.skipped, { from, to, why, at: t.now });
  clearGap(row);
  t.changed(row);
  t.countRebase();
}

/** The wait of `row` for a missing position ends (it came, or the lane was re-based). */
export function clearGap(row: LaneRow): void {
  row.gapPosition = undefined;
  row.gapSince = undefined;
  row.gapUntil = undefined;
}

/**
 * A sync lane's next position `position` is missing: starts the wait for it
 * while later positions wait (once per position), or goes on with it; once
 * the store's gap wait has passed, re-bases the lane to the first position
 * it holds. Resolves to that position and why, or `undefined` (it waits,
 * holds nothing later, is an async lane, or gaps are waited for for ever).
 */
export async function gap(
  t: LaneTx,
  row: LaneRow,
  position: number,
): Promise<{ to: number; why: RebaseWhy } | undefined> {
  const waitMs = t.ctx.gapWaitMs;
  if (waitMs <= 0 || row.lane.startsWith('a|')) return undefined;
  const first = await t.firstHeldAfter(row.lane, position);
  if (first === undefined) return undefined;
  if (row.gapPosition !== position || row.gapSince === undefined) {
    row.gapPosition = position;
    row.gapSince = t.now;
  }
  t.changed(row);
  if (t.now < row.gapSince + waitMs) {
    row.gapUntil = row.gapSince + waitMs;
    return undefined;
  }
  // No `next` of its own at position 1: the lane's state is gone (or the key's first event never came).
  const why: RebaseWhy = position === 1 && row.next === undefined ? 'no-state' : 'gap';
  recordRebase(t, row, position, first, why);
  return { to: first, why };
}
