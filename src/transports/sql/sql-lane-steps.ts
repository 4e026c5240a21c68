import type { LaneStep, StepReply } from '../../ordering/ordering-store.js';
import { gap } from './sql-lane-gap.js';
import { letGo, start } from './sql-lane-head.js';
import type { LaneRow } from './sql-lane-row.js';
import { type LaneContext, LaneTx, laneTransaction, lockLanes } from './sql-lane-tx.js';

/**
 * Applies a worker's steps in one transaction, one reply each, with the
 * semantics of `ordered-steps.lua`'s DONE, LATER, HALT and RELEASE: it locks
 * the lanes the steps name (and the async lanes `done` fans out to, made if
 * new), sorted, then the counters row. A step of a worker that is not the
 * lane's owner at that event is `lost` and changes nothing.
 */
export function applySteps(
  ctx: LaneContext,
  worker: string,
  steps: readonly LaneStep[],
): Promise<StepReply[]> {
  const fanOut = steps.flatMap((step) => (step.op === 'done' ? step.fanOut : []));
  return laneTransaction(ctx, async (tx, signal) => {
    const locked = await lockLanes(tx, ctx, [...steps.map((step) => step.lane), ...fanOut], fanOut);
    const rows = new Map(locked.map((row) => [row.lane, row]));
    const t = await LaneTx.open(tx, ctx, signal);
    await t.prefetch(
      steps.flatMap((step) =>
        step.op === 'done'
          ? [[step.lane, step.position] as const, [step.lane, step.position + 1] as const]
          : [],
      ),
    );
    const replies: StepReply[] = [];
    for (const step of steps) replies.push(await applyStep(t, worker, rows, step));
    await t.finish();
    return replies;
  });
}

async function applyStep(
  t: LaneTx,
  worker: string,
  rows: ReadonlyMap<string, LaneRow>,
  step: LaneStep,
): Promise<StepReply> {
  const row = rows.get(step.lane);
  if (step.op === 'release') {
    if (row?.owner === worker) {
      // Handed back unrun: this hand-out was no delivery.
      if (row.cur !== undefined && row.cur.deliveries > 0) row.cur.deliveries--;
      letGo(t, row);
      t.enqueue(row);
    }
    return 'ok';
  }
  if (row === undefined || row.owner !== worker || row.cur?.position !== step.position) return 'lost';
  if (step.op === 'done') return done(t, row, rows, step.fanOut);
  // The current event stays, with its attempts so far, until the retry is due or an operator resumes the lane.
  row.cur = {
    ...row.cur,
    attemptsMade: step.attemptsMade,
    failures: JSON.stringify(step.failures),
    from: step.from,
    skipped: undefined,
    deliveries: 0,
  };
  if (step.op === 'later') row.retryAt = t.now + Math.max(0, Math.round(step.delayMs));
  else {
    row.halt = JSON.stringify(step.why);
    row.haltedAt = t.now;
  }
  letGo(t, row);
  return 'ok';
}

/** Finishes the current event of `row`, fans it out to `fanOut`, and hands out the lane's next event. */
async function done(
  t: LaneTx,
  row: LaneRow,
  rows: ReadonlyMap<string, LaneRow>,
  fanOut: readonly string[],
): Promise<StepReply> {
  const cur = row.cur;
  if (cur === undefined) return 'lost';
  const position = cur.position;
  if (fanOut.length > 0) {
    const stored = await t.event(row.lane, position);
    if (stored !== undefined) {
      for (const name of fanOut) {
        const target = rows.get(name) as LaneRow;
        target.tail++;
        await t.insertEvent(name, target.tail, { payload: stored.payload, seq: cur.seq, prev: cur.prev });
        t.changed(target);
        t.enqueue(target);
      }
    }
  }
  await t.deleteEvent(row.lane, position);
  const nextPosition = position + 1;
  row.next = nextPosition;
  row.last = cur.seq;
  row.cur = undefined;
  t.changed(row);
  const stored = await t.event(row.lane, nextPosition);
  if (stored === undefined) {
    letGo(t, row);
    // Later positions wait behind a missing one: its wait starts now (it cannot be over yet).
    await gap(t, row, nextPosition);
    return 'empty';
  }
  return start(t, row, nextPosition, stored);
}
