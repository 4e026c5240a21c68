import type { RebaseWhy } from '../../ordering/lane-rebase.js';
import type { HaltReason, LaneEvent, LaneStatus } from '../../ordering/ordering-store.js';
import { clearGap, gap } from './sql-lane-gap.js';
import type { LaneCurrent, LaneRow } from './sql-lane-row.js';
import type { LaneTx } from './sql-lane-tx.js';

/** A lane's current event as a worker gets it. */
export function laneEventOf(
  lane: string,
  cur: LaneCurrent,
  payload: string,
  rebased?: { readonly from: number; readonly why: RebaseWhy },
): LaneEvent {
  return {
    ...(rebased === undefined ? {} : { rebased }),
    lane,
    position: cur.position,
    seq: cur.seq,
    prev: cur.prev,
    attemptsMade: cur.attemptsMade,
    failures: JSON.parse(cur.failures),
    from: cur.from,
    skipped: cur.skipped === undefined ? undefined : (JSON.parse(cur.skipped) as HaltReason),
    payload,
    deliveries: cur.deliveries,
  };
}

/** The worker lets go of `row` (it has no event to run, waits for a retry, or halted). */
export function letGo(t: LaneTx, row: LaneRow): void {
  row.owner = undefined;
  row.ownedAt = undefined;
  t.changed(row);
}

/**
 * `worker` claims `row`, taken from the queue: `owned` while it or another
 * live worker owns it, `halted`, `waiting` for a retry not yet due, else its
 * current event (see {@link head}). `leases` holds the lease ends of the
 * worker and of the lane's owner.
 */
export async function claim(
  t: LaneTx,
  worker: string,
  row: LaneRow,
  leases: ReadonlyMap<string, number>,
): Promise<LaneEvent | LaneStatus> {
  row.queuedAt = undefined;
  t.changed(row);
  // Owned by this worker (another of its slots has it, whatever its lease says) or by another live one.
  if (row.owner !== undefined && (row.owner === worker || (leases.get(row.owner) ?? 0) > t.now)) {
    return 'owned';
  }
  if (row.halt !== undefined) {
    letGo(t, row);
    return 'halted';
  }
  if (row.retryAt !== undefined) {
    if (row.retryAt > t.now) {
      letGo(t, row);
      return 'waiting';
    }
    row.retryAt = undefined;
  }
  row.owner = worker;
  row.ownedAt = t.now;
  return head(t, row);
}

/**
 * The owned lane's current event, handed out once more; else the event at
 * its next position, which becomes its current event (a sync lane gives it
 * the bus's next `seq`, and the last handled one's as `prev`), re-basing
 * past a missing position whose wait is over; `empty` (let go) when it has
 * no event to run.
 */
export async function head(t: LaneTx, row: LaneRow): Promise<LaneEvent | 'empty'> {
  t.changed(row);
  const cur = row.cur;
  if (cur !== undefined) {
    const stored = await t.event(row.lane, cur.position);
    if (stored !== undefined) {
      // Handed out again: after a retry or a resume (0), or taken over from an owner that died mid-event.
      cur.deliveries++;
      return laneEventOf(row.lane, cur, stored.payload);
    }
    row.cur = undefined;
  }
  let position = row.next ?? 1;
  let stored = await t.event(row.lane, position);
  let rebased: { from: number; why: RebaseWhy } | undefined;
  if (stored === undefined) {
    const to = await gap(t, row, position);
    if (to === undefined) {
      letGo(t, row);
      return 'empty';
    }
    rebased = { from: position, why: to.why };
    position = to.to;
    stored = await t.event(row.lane, position);
    if (stored === undefined) {
      letGo(t, row);
      return 'empty';
    }
  } else if (row.gapPosition !== undefined) {
    // The missing position came.
    clearGap(row);
  }
  return start(t, row, position, stored, rebased);
}

/** Makes the event at `position` the lane's current event, handed out for the first time. */
export function start(
  t: LaneTx,
  row: LaneRow,
  position: number,
  stored: { readonly payload: string; readonly seq: number | undefined; readonly prev: number | undefined },
  rebased?: { from: number; why: RebaseWhy },
): LaneEvent {
  const isAsync = row.lane.startsWith('a|');
  const cur: LaneCurrent = {
    position,
    seq: isAsync ? (stored.seq ?? 0) : t.nextSeq(),
    prev: isAsync ? stored.prev : row.last,
    attemptsMade: 0,
    failures: '[]',
    from: 0,
    skipped: undefined,
    deliveries: 1,
  };
  row.cur = cur;
  t.changed(row);
  return laneEventOf(row.lane, cur, stored.payload, rebased);
}
