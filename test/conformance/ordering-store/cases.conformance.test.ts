import { describe, expect, it } from 'vitest';
import { asyncLane, syncLane } from '../../../src/ordering/lane.js';
import type { HaltReason, LaneEvent, LaneStep } from '../../../src/ordering/ordering-store.js';
import { waitFor } from '../../helpers/wait-for.js';
import { adaptersFor } from '../adapters.js';
import { conformanceBed } from '../bed.js';
import { failure, type Harness, harnessOf, laneState } from './harness.js';

const bed = conformanceBed('conformance-ordering');

// ---------------------------------------------------------------------------------------------------------
// Focused cases.

/**
 * The lease of a worker that lives through a test: long, so a slow store (a
 * database on a loaded machine) never sees it lapse mid-test. A worker a
 * test lets die or stall renews last with {@link SHORT}, so the sweep hands
 * its lanes back soon after.
 */
const LEASE = 60_000;
const SHORT = 400;

describe.each(adaptersFor('ordering'))('OrderingStore on $name', (adapter) => {
  const harness = () => harnessOf(bed, adapter);
  const done = (lane: string, position: number, fanOut: string[] = []): LaneStep => ({
    op: 'done',
    lane,
    position,
    fanOut,
  });

  /** Two live workers, two events on one sync lane, and w1 holding the first of them. */
  async function w1HoldsFirstOfTwo(key: string) {
    const h = harness();
    const { store } = h;
    const lane = syncLane(key);
    await store.maintain('w1', LEASE);
    await store.maintain('w2', LEASE);
    await h.publish([
      { lane, payload: 'e1' },
      { lane, payload: 'e2' },
    ]);
    const [first] = await store.take('w1', 5);
    return { h, store, lane, first };
  }

  /** Waits until `dead`'s lease lapsed and a maintain by `alive` handed its lanes back. */
  async function sweep(h: Harness, alive: string, dead: string): Promise<void> {
    await waitFor(
      `${dead}'s lease to lapse and its lanes to go back`,
      async () => {
        await h.store.maintain(alive, LEASE);
        return !(await h.snapshot([], [dead])).leases.has(dead);
      },
      { timeoutMs: 5_000, intervalMs: 10 },
    );
  }

  it('a worker that dies mid-event keeps its lane until its lease lapses; another then resumes that same event, and the late done of the dead one is lost', async () => {
    const { h, store, lane, first } = await w1HoldsFirstOfTwo('order-1');
    expect(first).toMatchObject({ lane, position: 1, prev: undefined, attemptsMade: 0, payload: 'e1' });

    // w1 dies now (stops acting and renewing). Another event queues the lane, but w2 cannot claim it yet.
    await store.maintain('w1', SHORT);
    await h.publish([{ lane, payload: 'e3' }]);
    expect(await store.take('w2', 5)).toEqual([]);
    const owned = laneState(await h.snapshot([lane], ['w1']), lane);
    expect(owned).toMatchObject({ owner: 'w1', next: 1, cur: { pos: 1, seq: first?.seq, prev: undefined } });

    await sweep(h, 'w2', 'w1');
    const [again] = await store.take('w2', 5);
    // Taken over from a worker that died mid-event: one more delivery.
    expect(again).toEqual({ ...first, deliveries: 2 });

    // The dead worker's late steps are lost and change nothing.
    const before = laneState(await h.snapshot([lane], ['w2']), lane);
    expect(
      await store.steps('w1', [
        done(lane, 1),
        { op: 'later', lane, position: 1, delayMs: 0, attemptsMade: 1, failures: [], from: 0 },
        { op: 'release', lane },
      ]),
    ).toEqual(['lost', 'lost', 'ok']);
    expect(laneState(await h.snapshot([lane], ['w2']), lane)).toEqual(before);
    expect(before).toMatchObject({ owner: 'w2', next: 1 });

    const [second] = await store.steps('w2', [done(lane, 1)]);
    expect(second).toMatchObject({ position: 2, prev: first?.seq, payload: 'e2' });
    expect((second as LaneEvent).seq).toBeGreaterThan(first?.seq as number);
  });

  it('a worker whose lanes went back after its lease lapsed has lost them, even if it renews its lease before anyone took over', async () => {
    const { h, store, lane, first } = await w1HoldsFirstOfTwo('order-2');
    // w1 stalls (a long pause) past its lease; its lane goes back.
    await store.maintain('w1', SHORT);
    await sweep(h, 'w2', 'w1');
    // It wakes, renews, and finishes its event late: lost, the lane is no longer its.
    await store.maintain('w1', LEASE);
    expect(await store.steps('w1', [done(lane, 1)])).toEqual(['lost']);
    // w2 resumes the event; then w1 dies for good, and nothing is stuck behind it.
    const [again] = await store.take('w2', 5);
    expect(again).toEqual({ ...first, deliveries: 2 });
    const [second] = await store.steps('w2', [done(lane, 1)]);
    expect(second).toMatchObject({ position: 2, prev: first?.seq, payload: 'e2' });
    expect(await store.steps('w2', [done(lane, 2)])).toEqual(['empty']);
    expect(await store.pending()).toBe(0);
  });

  it('a worker without a live lease takes nothing until it renews, so no lane is owned by a worker the sweep no longer knows', async () => {
    const h = harness();
    const { store } = h;
    const lane = syncLane('order-9');
    await store.maintain('w1', 1);
    await sweep(h, 'w2', 'w1');
    await h.publish([{ lane, payload: 'e1' }]);
    expect(await store.take('w1', 5)).toEqual([]);
    expect(await store.waitAndClaim('w1', 20)).toBeUndefined();
    const s = await h.snapshot([lane], ['w1']);
    expect(laneState(s, lane)).toMatchObject({ owner: undefined, q: true, next: 1 });
    expect(s.ready).toEqual([lane]);
    expect(s.taken.get('w1')).toEqual([]);
    await store.maintain('w1', LEASE);
    expect(await store.take('w1', 5)).toMatchObject([{ lane, position: 1, payload: 'e1' }]);
  });

  it('events arriving out of order wait for the missing position; a republished position is dropped', async () => {
    const h = harness();
    const { store } = h;
    const lane = syncLane('order-3');
    await store.maintain('w1', LEASE);
    expect(await h.publish([{ lane, payload: 'p2', position: 2 }])).toBe(0);
    expect(await store.take('w1', 5)).toEqual([]);
    expect(laneState(await h.snapshot([lane], ['w1']), lane)).toMatchObject({ next: 1, owner: undefined });
    expect(await store.pending()).toBe(1);

    expect(await h.publish([{ lane, payload: 'p1', position: 1 }])).toBe(0);
    const [one] = await store.take('w1', 5);
    expect(one).toMatchObject({ position: 1, payload: 'p1', prev: undefined });
    // Position 2 again while it waits, and position 1 again while it runs: both dropped.
    expect(
      await h.publish([
        { lane, payload: 'p2', position: 2, republish: true },
        { lane, payload: 'p1', position: 1, republish: true },
      ]),
    ).toBe(2);
    const [two] = await store.steps('w1', [done(lane, 1)]);
    expect(two).toMatchObject({ position: 2, payload: 'p2', prev: one?.seq });
    expect(await store.steps('w1', [done(lane, 2)])).toEqual(['empty']);

    // Handled positions republished (an outbox relay sending rows again): dropped.
    expect(
      await h.publish([
        { lane, payload: 'p1', position: 1, republish: true },
        { lane, payload: 'p2', position: 2, republish: true },
      ]),
    ).toBe(2);
    expect(await store.pending()).toBe(0);
    expect(await store.take('w1', 5)).toEqual([]);
  });

  it('a halt keeps the later events back; redrive hands the same event with fresh attempts, skip marks it skipped', async () => {
    const h = harness();
    const { store } = h;
    const lane = syncLane('order-4');
    await store.maintain('w1', LEASE);
    await h.publish([
      { lane, payload: 'e1' },
      { lane, payload: 'e2' },
    ]);
    const [first] = (await store.take('w1', 5)) as [LaneEvent];
    const why: HaltReason = { handler: 'h', reason: 'exhausted', error: 'boom' };
    const failures = [failure(1), failure(2), failure(3)];
    const halt: LaneStep = { op: 'halt', lane, position: 1, attemptsMade: 3, failures, from: 1, why };
    expect(await store.steps('w1', [halt])).toEqual(['ok']);

    await h.publish([{ lane, payload: 'e3' }]);
    expect(await store.take('w1', 5)).toEqual([]);
    expect(await store.halted()).toEqual([
      {
        lane,
        haltedAt: expect.any(Date),
        why,
        waiting: 3,
        event: { ...first, attemptsMade: 3, failures, from: 1, deliveries: 0 },
      },
    ]);
    expect(await store.pendingInHalted()).toBe(3);
    expect(await store.pending()).toBe(3);

    expect(await store.resume('redrive', [lane, syncLane('not-halted')])).toBe(1);
    expect(await store.halted()).toEqual([]);
    expect(await store.take('w1', 5)).toEqual([{ ...first, attemptsMade: 0, failures: [], from: 1 }]);

    expect(await store.steps('w1', [halt])).toEqual(['ok']);
    expect(await store.resume('skip', [lane])).toBe(1);
    expect(await store.resume('skip', [lane])).toBe(0);
    expect(await store.take('w1', 5)).toEqual([
      { ...first, attemptsMade: 3, failures, from: 1, skipped: why },
    ]);
    const [second] = await store.steps('w1', [done(lane, 1)]);
    expect(second).toMatchObject({ position: 2, prev: first.seq, payload: 'e2', skipped: undefined });
  });

  it('later holds the lane back until the retry is due, then hands the same event with its attempts', async () => {
    const h = harness();
    const { store } = h;
    const lane = syncLane('order-5');
    await store.maintain('w1', LEASE);
    await h.publish([
      { lane, payload: 'e1' },
      { lane, payload: 'e2' },
    ]);
    const [first] = (await store.take('w1', 5)) as [LaneEvent];
    const later: LaneStep = {
      op: 'later',
      lane,
      position: 1,
      delayMs: SHORT,
      attemptsMade: 1,
      failures: [failure(1)],
      from: 2,
    };
    expect(await store.steps('w1', [later])).toEqual(['ok']);
    await h.publish([{ lane, payload: 'e3' }]);
    expect(await store.take('w1', 5)).toEqual([]);
    let again: LaneEvent[] = [];
    await waitFor('the retry to come due', async () => {
      await store.maintain('w1', LEASE);
      again = await store.take('w1', 5);
      return again.length > 0;
    });
    expect(again).toEqual([{ ...first, attemptsMade: 1, failures: [failure(1)], from: 2 }]);
  });

  it('done fans the event out to async lanes, which get the sync seq and prev, in order', async () => {
    const h = harness();
    const { store } = h;
    const lane = syncLane('order-6');
    const [a1, a2] = [asyncLane('h1', 'order-6'), asyncLane('h2', 'order-6')];
    await store.maintain('w1', LEASE);
    await h.publish([
      { lane, payload: 'e1' },
      { lane, payload: 'e2' },
    ]);
    const [first] = (await store.take('w1', 5)) as [LaneEvent];
    const [second] = (await store.steps('w1', [done(lane, 1, [a1, a2])])) as [LaneEvent];
    expect(await store.steps('w1', [done(lane, 2, [a1])])).toEqual(['empty']);
    const taken = await store.take('w1', 5);
    expect(taken.map((e) => e.lane).sort()).toEqual([a1, a2]);
    for (const e of taken)
      expect(e).toMatchObject({ position: 1, seq: first.seq, prev: undefined, payload: 'e1' });
    expect(await store.steps('w1', [done(a1, 1), done(a2, 1)])).toEqual([
      { ...second, lane: a1, position: 1 + 1, attemptsMade: 0, failures: [], from: 0 },
      'empty',
    ]);
  });

  it('a worker that leaves hands its lanes back at once, at their current events', async () => {
    const h = harness();
    const { store } = h;
    const [a, b] = [syncLane('order-7'), syncLane('order-8')];
    await store.maintain('w1', LEASE);
    await store.maintain('w2', LEASE);
    await h.publish([
      { lane: a, payload: 'a1' },
      { lane: b, payload: 'b1' },
    ]);
    const held = await store.take('w1', 5);
    expect(held).toHaveLength(2);
    await store.leave('w1');
    const taken = await store.take('w2', 5);
    // Unfinished when their worker left: taken over, with one more delivery.
    expect(taken.sort((x, y) => x.lane.localeCompare(y.lane))).toEqual(
      held.sort((x, y) => x.lane.localeCompare(y.lane)).map((e) => ({ ...e, deliveries: 2 })),
    );
    expect(await store.steps('w1', [done(a, 1), done(b, 1)])).toEqual(['lost', 'lost']);
    expect(await store.steps('w2', [done(a, 1), done(b, 1)])).toEqual(['empty', 'empty']);
  });

  it('counts a delivery each time a new owner takes over the current event; a release unrun gives it back, and a retry, a done or a resume starts the count again', async () => {
    const h = harness();
    const { store } = h;
    const lane = syncLane('order-10');
    await store.maintain('w1', LEASE);
    await store.maintain('w2', LEASE);
    await h.publish([
      { lane, payload: 'e1' },
      { lane, payload: 'e2' },
    ]);
    const [first] = (await store.take('w1', 5)) as [LaneEvent];
    expect(first).toMatchObject({ position: 1, deliveries: 1 });

    // w1 dies mid-event: w2 takes the same event over, delivered twice.
    await store.maintain('w1', SHORT);
    await sweep(h, 'w2', 'w1');
    const [second] = (await store.take('w2', 5)) as [LaneEvent];
    expect(second).toEqual({ ...first, deliveries: 2 });
    expect(laneState(await h.snapshot([lane], []), lane).cur?.cd).toBe(2);

    // w2 hands it back unrun (a shutdown, its turn is over): that hand-out does not count.
    expect(await store.steps('w2', [{ op: 'release', lane }])).toEqual(['ok']);
    const [third] = (await store.take('w2', 5)) as [LaneEvent];
    expect(third.deliveries).toBe(2);

    // w2 dies too; w3 takes it over: three deliveries. Its run fails: a retry starts the count again.
    await store.maintain('w3', LEASE);
    await store.maintain('w2', SHORT);
    await sweep(h, 'w3', 'w2');
    const [fourth] = (await store.take('w3', 5)) as [LaneEvent];
    expect(fourth.deliveries).toBe(3);
    const later: LaneStep = {
      op: 'later',
      lane,
      position: 1,
      delayMs: 0,
      attemptsMade: 1,
      failures: [failure(1)],
      from: 0,
    };
    expect(await store.steps('w3', [later])).toEqual(['ok']);
    let retried: LaneEvent[] = [];
    await waitFor('the retry to come due', async () => {
      await store.maintain('w3', LEASE);
      retried = await store.take('w3', 5);
      return retried.length > 0;
    });
    expect(retried).toMatchObject([{ position: 1, attemptsMade: 1, deliveries: 1 }]);

    // Halted as crashed and re-driven: delivered once more, not refused again.
    const why: HaltReason = { handler: 'h', reason: 'crashed', error: 'delivered 6 times' };
    const halt: LaneStep = { op: 'halt', lane, position: 1, attemptsMade: 1, failures: [], from: 0, why };
    expect(await store.steps('w3', [halt])).toEqual(['ok']);
    expect(laneState(await h.snapshot([lane], []), lane).cur?.cd).toBe(0);
    expect(await store.resume('redrive', [lane])).toBe(1);
    const [redriven] = (await store.take('w3', 5)) as [LaneEvent];
    expect(redriven).toMatchObject({ position: 1, deliveries: 1 });

    // Done: the next event starts at one delivery.
    const [next] = (await store.steps('w3', [done(lane, 1)])) as [LaneEvent];
    expect(next).toMatchObject({ position: 2, payload: 'e2', deliveries: 1 });
  });
});
