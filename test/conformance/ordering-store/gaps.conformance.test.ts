/**
 * Gaps and re-bases through the `OrderingStore` port, on every adapter: a
 * sync lane whose next position is missing while later ones wait holds them
 * back for the gap wait, then goes on from the first position it holds (the
 * event says so, and the re-base is counted and recorded); a position that
 * comes within the wait ends it; an operator's re-base goes on at once, and
 * is refused while the lane has a current event.
 */
import { describe, expect, it } from 'vitest';
import { syncLane } from '../../../src/ordering/lane.js';
import type { LaneEvent } from '../../../src/ordering/ordering-store.js';
import { waitFor } from '../../helpers/wait-for.js';
import { adaptersFor } from '../adapters.js';
import { conformanceBed } from '../bed.js';
import { harnessOf, laneState } from './harness.js';

const bed = conformanceBed('conformance-ordering-gaps');

/** Outbox timers whose gap wait (`2 × (graceMs + relayEveryMs)`) is 200 ms. */
const SHORT_GAP = { outbox: { enabled: false, graceMs: 60, relayEveryMs: 40 } };
const LEASE = 60_000;

describe.each(adaptersFor('ordering'))('OrderingStore gaps on $name', (adapter) => {
  it('holds later positions back for the gap wait, then re-bases to the first one held and counts it', async () => {
    const h = harnessOf(bed, adapter, SHORT_GAP);
    const { store } = h;
    const lane = syncLane('gap-1');
    await store.maintain('w1', LEASE);
    await h.publish([
      { lane, payload: 'p3', position: 3 },
      { lane, payload: 'p2', position: 2 },
    ]);
    expect(await store.take('w1', 5)).toEqual([]);
    expect(await store.rebased(10)).toEqual({ count: 0, recent: [] });

    // The upkeep queues the lane once the wait is over; the take then re-bases it.
    let taken: LaneEvent[] = [];
    await waitFor('the gap wait to end', async () => {
      await store.maintain('w1', LEASE);
      taken = await store.take('w1', 5);
      return taken.length > 0;
    });
    expect(taken).toMatchObject([
      { lane, position: 2, prev: undefined, payload: 'p2', rebased: { from: 1, why: 'no-state' } },
    ]);
    const log = await store.rebased(10);
    expect(log).toEqual({
      count: 1,
      recent: [{ lane, from: 1, to: 2, why: 'no-state', at: expect.any(Number) }],
    });

    const [next] = (await store.steps('w1', [{ op: 'done', lane, position: 2, fanOut: [] }])) as [LaneEvent];
    expect(next).toMatchObject({ position: 3, payload: 'p3', prev: taken[0]?.seq });
    expect(next.rebased).toBeUndefined();
    expect(await store.steps('w1', [{ op: 'done', lane, position: 3, fanOut: [] }])).toEqual(['empty']);
    // Position 1, coming now, is late: not taken.
    expect(await h.publish([{ lane, payload: 'p1', position: 1 }])).toBe(0);
    expect(await store.pending()).toBe(0);
    expect(laneState(await h.snapshot([lane], []), lane).next).toBe(4);
  });

  it('waits for a missing position that comes within the gap wait, and does not re-base', async () => {
    const h = harnessOf(bed, adapter, SHORT_GAP);
    const { store } = h;
    const lane = syncLane('gap-2');
    await store.maintain('w1', LEASE);
    await h.publish([{ lane, payload: 'p2', position: 2 }]);
    expect(await store.take('w1', 5)).toEqual([]);
    await h.publish([{ lane, payload: 'p1', position: 1 }]);
    const [first] = await store.take('w1', 5);
    expect(first).toMatchObject({ position: 1, payload: 'p1' });
    expect(first?.rebased).toBeUndefined();
    await h.pass(250);
    await store.maintain('w1', LEASE);
    expect(await store.steps('w1', [{ op: 'done', lane, position: 1, fanOut: [] }])).toMatchObject([
      { position: 2, payload: 'p2' },
    ]);
    expect((await store.rebased(10)).count).toBe(0);
  });

  it("an operator's re-base goes on at once from the first position held, and is refused while the lane has a current event", async () => {
    const h = harnessOf(bed, adapter);
    const { store } = h;
    const lane = syncLane('gap-3');
    expect(await store.rebase(lane)).toEqual({ status: 'unknown' });
    await store.maintain('w1', LEASE);
    await h.publish([
      { lane, payload: 'p6', position: 6 },
      { lane, payload: 'p5', position: 5 },
    ]);
    expect(await store.rebase(lane, 6)).toEqual({ status: 'above', first: 5 });
    expect(await store.rebase(lane)).toEqual({ status: 'ok', from: 1, to: 5 });
    expect(await store.rebase(lane, 2)).toEqual({ status: 'below', next: 5 });
    const [first] = await store.take('w1', 5);
    expect(first).toMatchObject({ position: 5, payload: 'p5' });
    expect(first?.rebased).toBeUndefined();
    expect(await store.rebase(lane)).toEqual({ status: 'busy', position: 5 });
    expect(await store.rebased(10)).toEqual({
      count: 1,
      recent: [{ lane, from: 1, to: 5, why: 'operator', at: expect.any(Number) }],
    });
    // A lane the store numbers refuses a position past the one its next event gets.
    const auto = syncLane('gap-4');
    await h.publish([{ lane: auto, payload: 'a1' }]);
    await store.steps('w1', [{ op: 'done', lane, position: 5, fanOut: [] }]);
    await store.steps('w1', [{ op: 'done', lane, position: 6, fanOut: [] }]);
    expect(await store.take('w1', 5)).toMatchObject([{ lane: auto, position: 1 }]);
    expect(await store.steps('w1', [{ op: 'done', lane: auto, position: 1, fanOut: [] }])).toEqual(['empty']);
    expect(await store.rebase(auto, 3)).toEqual({ status: 'beyond', next: 2 });
    expect(await store.rebase(auto, 2)).toEqual({ status: 'ok', from: 2, to: 2 });
  });
});
