/**
 * The router's batch store, on every adapter of ../adapters.ts that provides it: `take` walks the subscribers that can send, so a
 * paused, capped or ordered subscriber's backlog never holds the others back, and every step that
 * changes what a subscriber may send puts it back in line.
 */
import { expect, it } from 'vitest';
import {
  catalogKeys,
  describeOnEachStores,
  evs,
  expectKeys,
  shape,
  subscriber,
  T,
} from '../../helpers/router-stores.js';

const W = { worker: 'w1', limit: 10, leaseMs: 30_000, maxInFlightPerSubscriber: 10 };

describeOnEachStores('router-stores-line', 'router stores in line ($name)', (open) => {
  // Review: take looked at the first limit + 1,000 due batches only, so a stuck backlog starved the rest.
  it.each([
    ['paused', { paused: true }, 0],
    ['at its in-flight cap', {}, 16],
    ['ordered, its first batch out', { ordered: true }, 1],
  ])('lets no backlog of a subscriber %s hold the others back', async (_, stuck, out) => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('slow', ['big'], { maxEvents: 1, ...stuck }));
    if ('paused' in stuck) await s.subscribers.setPaused('slow', true); // saving leaves it alone
    await s.subscribers.saveSubscriber(subscriber('ok', ['small'], { timeoutMs: 0 }));
    await s.batches.ingest('pub', 'big', evs(...Array.from({ length: 1_100 }, (_, i) => i)), T);
    const at16 = { ...W, limit: 16, maxInFlightPerSubscriber: 16 };
    const taken = await s.batches.take({ ...at16, now: T });
    expect(taken.length).toBe(out);
    await s.batches.ingest('pub', 'small', evs(1), T + 1);
    expect(shape(await s.batches.take({ ...at16, now: T + 1 }))).toEqual([
      { subscriber: 'ok', events: evs(1), attempts: 0 },
    ]);
    if ('paused' in stuck) await s.subscribers.setPaused('slow', false);
    else await s.batches.ack('w1', taken[0]?.id ?? '');
    const [next] = await s.batches.take({ ...at16, limit: 1, now: T + 1 });
    expect(next).toMatchObject({ subscriber: 'slow', events: evs(out) });
  });

  it('puts a subscriber back in line on discard, recovery, requeue, new settings, drops and promotion', async () => {
    const s = open();
    const a = subscriber('a', ['t'], { maxEvents: 1, ordered: true });
    await s.subscribers.saveSubscriber(a);
    await s.batches.ingest('pub', 't', evs(1, 2), T);
    const [b1] = await s.batches.take({ ...W, now: T });
    expect(await s.batches.take({ ...W, now: T })).toEqual([]);
    expect(await s.batches.discard('w1', b1?.id ?? '')).toBe(true);
    const [b2] = await s.batches.take({ ...W, now: T });
    await s.batches.requeue('a', evs(3), T);
    expect(await s.batches.take({ ...W, now: T })).toEqual([]);
    const later = T + W.leaseMs;
    expect(await s.batches.recoverExpired(later, later)).toBe(1);
    expect(await s.batches.take({ ...W, now: later })).toMatchObject([{ id: b2?.id, attempts: 1 }]);
    await s.subscribers.saveSubscriber({ ...a, ordered: false });
    const [b3] = await s.batches.take({ ...W, now: later });
    for (const b of [b2, b3]) expect(await s.batches.ack('w1', b?.id ?? '')).toBe(true);
    // Ordered again, its first batch early (maxEvents 2), a requeued one behind it.
    await s.subscribers.saveSubscriber({ ...a, maxEvents: 2 });
    await s.batches.ingest('pub', 't', evs(4), later);
    await s.batches.requeue('a', evs(5), later);
    expect(await s.batches.take({ ...W, now: later })).toEqual([]);
    expect(await s.batches.dropOldest(1)).toEqual({ batches: 1, eventsBySubscriber: { a: 1 } });
    const [b5] = await s.batches.take({ ...W, now: later });
    await s.batches.ingest('pub', 't', evs(6), later);
    await s.batches.ack('w1', b5?.id ?? '');
    expect(await s.batches.take({ ...W, now: later })).toEqual([]);
    expect(await s.batches.promoteDue(later + 500)).toBe(1);
    const [b6] = await s.batches.take({ ...W, now: later + 500 });
    expect(await s.batches.ack('w1', b6?.id ?? '')).toBe(true);
    expect([b1, b2, b3, b5, b6].map((b) => b?.events)).toEqual([evs(1), evs(2), evs(3), evs(5), evs(6)]);
    await expectKeys(s, catalogKeys({ a: ['t'] }));
  });

  it('counts the batches due by a time: ready ones by due time, early ones by deadline, none paused or out', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('full', ['t'], { maxEvents: 1 }));
    await s.subscribers.saveSubscriber(subscriber('waits', ['t'], { maxEvents: 10, timeoutMs: 1_000 }));
    await s.subscribers.saveSubscriber(subscriber('paused', ['t'], { maxEvents: 1 }));
    await s.subscribers.setPaused('paused', true);
    await s.batches.ingest('pub', 't', evs(1, 2, 3), T);
    // full: three ready batches; waits: one early batch due at T + 1000; paused: not counted.
    expect(await s.batches.countDue(T)).toBe(3);
    expect(await s.batches.countDue(T + 999)).toBe(3);
    expect(await s.batches.countDue(T + 1_000)).toBe(4);
    const [out] = await s.batches.take({ ...W, limit: 1, now: T });
    expect(out?.subscriber).toBe('full');
    expect(await s.batches.countDue(T + 1_000)).toBe(3);
    expect(await s.batches.nack('w1', out?.id ?? '', T + 60_000, 'HTTP 503')).toBe(true);
    expect(await s.batches.countDue(T + 1_000)).toBe(3);
    expect(await s.batches.countDue(T + 60_000)).toBe(4);
    await s.subscribers.setPaused('paused', false);
    expect(await s.batches.countDue(T + 60_000)).toBe(7);
  });
});
