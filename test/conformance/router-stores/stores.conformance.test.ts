/**
 * The router's store ports driven the same way on every adapter of ../adapters.ts that provides them: fan-out,
 * ownership, batching by size and deadline, take (paused, in-flight cap, ordered; the backlog cases
 * are in stores-line.conformance.test.ts), ack/nack/discard/requeue, lease recovery, autodrop, stats and the catalogue. On
 * Redis each case also checks which keys are left under `{tag}:router:`.
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

describeOnEachStores('router-stores', 'router stores ($name)', (open) => {
  it('fans an ingest out to every subscriber of the topic and promotes at the deadline, not before', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['orders']));
    await s.subscribers.saveSubscriber(subscriber('b', ['orders', 'other']));
    await s.subscribers.saveSubscriber(subscriber('c', ['other']));
    expect(await s.batches.ingest('pub', 'orders', evs(1, 2), T)).toEqual({ ok: true, subscribers: 2 });
    expect(await s.batches.take({ ...W, now: T + 10_000 })).toEqual([]);
    expect(await s.batches.promoteDue(T + 499)).toBe(0);
    expect(await s.batches.promoteDue(T + 500)).toBe(2);
    const taken = await s.batches.take({ ...W, now: T + 500 });
    expect(shape(taken).sort((x, y) => (x.subscriber < y.subscriber ? -1 : 1))).toEqual([
      { subscriber: 'a', events: evs(1, 2), attempts: 0 },
      { subscriber: 'b', events: evs(1, 2), attempts: 0 },
    ]);
    expect(taken.map((b) => [b.createdAt, b.health, b.lastError])).toEqual([
      [T, 100, undefined],
      [T, 100, undefined],
    ]);
    expect(new Set(taken.map((b) => b.id)).size).toBe(2);
    const stats = await s.batches.stats();
    expect(stats).toEqual({
      a: { sent: 0, queued: 2, oldest: T, batches: 1, health: 100, lastError: null },
      b: { sent: 0, queued: 2, oldest: T, batches: 1, health: 100, lastError: null },
      c: { sent: 0, queued: 0, oldest: null, batches: 0, health: 100, lastError: null },
    });
    expect(await s.topics.listTopics()).toEqual([
      { name: 'orders', publisher: 'pub', events: 2 },
      { name: 'other', publisher: null, events: 0 },
    ]);
    for (const b of taken) expect(await s.batches.ack('w1', b.id)).toBe(true);
    expect((await s.batches.stats()).a).toEqual({
      sent: 2,
      queued: 0,
      oldest: null,
      batches: 0,
      health: 100,
      lastError: null,
    });
    await expectKeys(s, catalogKeys({ a: ['orders'], b: ['orders', 'other'], c: ['other'] }));
  });

  it('refuses a second publisher with the owner, queueing nothing', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['orders'], { timeoutMs: 0 }));
    expect(await s.batches.ingest('pub', 'orders', evs(1), T)).toEqual({ ok: true, subscribers: 1 });
    expect(await s.batches.ingest('intruder', 'orders', evs(2, 3), T)).toEqual({ ok: false, owner: 'pub' });
    expect((await s.batches.stats()).a?.queued).toBe(1);
    expect(await s.topics.listTopics()).toEqual([{ name: 'orders', publisher: 'pub', events: 1 }]);
    expect(shape(await s.batches.take({ ...W, now: T }))).toEqual([
      { subscriber: 'a', events: evs(1), attempts: 0 },
    ]);
  });

  it('makes a batch ready once it holds maxEvents, splitting a large ingest, and at once with timeout 0', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { maxEvents: 3 }));
    await s.subscribers.saveSubscriber(subscriber('z', ['t'], { timeoutMs: 0 }));
    await s.batches.ingest('pub', 't', evs(1, 2), T);
    await s.batches.ingest('pub', 't', evs(3, 4, 5, 6, 7), T + 1);
    const taken = await s.batches.take({ ...W, now: T + 1 });
    expect(shape(taken)).toEqual([
      { subscriber: 'z', events: evs(1, 2), attempts: 0 },
      { subscriber: 'a', events: evs(1, 2, 3), attempts: 0 },
      { subscriber: 'a', events: evs(4, 5, 6), attempts: 0 },
      { subscriber: 'z', events: evs(3, 4, 5, 6, 7), attempts: 0 },
    ]);
    expect((await s.batches.stats()).a).toEqual({
      sent: 0,
      queued: 7,
      oldest: T,
      batches: 3,
      health: 100,
      lastError: null,
    });
    expect(await s.batches.promoteDue(T + 1 + 499)).toBe(0);
    expect(await s.batches.promoteDue(T + 1 + 500)).toBe(1);
    expect(shape(await s.batches.take({ ...W, now: T + 501 }))).toEqual([
      { subscriber: 'a', events: evs(7), attempts: 0 },
    ]);
  });

  it('skips paused subscribers and keeps each under its in-flight cap', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { maxEvents: 1 }));
    await s.subscribers.saveSubscriber(subscriber('b', ['t'], { maxEvents: 1 }));
    await s.batches.ingest('pub', 't', evs(1, 2, 3), T);
    expect(await s.subscribers.setPaused('a', true)).toBe(true);
    expect(await s.subscribers.setPaused('nobody', true)).toBe(false);
    expect((await s.subscribers.getSubscriber('a'))?.paused).toBe(true);
    const first = await s.batches.take({ ...W, now: T, maxInFlightPerSubscriber: 2 });
    expect(shape(first)).toEqual([
      { subscriber: 'b', events: evs(1), attempts: 0 },
      { subscriber: 'b', events: evs(2), attempts: 0 },
    ]);
    expect(await s.batches.take({ ...W, now: T, maxInFlightPerSubscriber: 2 })).toEqual([]);
    await s.subscribers.setPaused('a', false);
    expect(shape(await s.batches.take({ ...W, now: T, maxInFlightPerSubscriber: 2 }))).toEqual([
      { subscriber: 'a', events: evs(1), attempts: 0 },
      { subscriber: 'a', events: evs(2), attempts: 0 },
    ]);
    expect(await s.batches.ack('w1', first[0]?.id ?? '')).toBe(true);
    expect(shape(await s.batches.take({ ...W, now: T, maxInFlightPerSubscriber: 2 }))).toEqual([
      { subscriber: 'b', events: evs(3), attempts: 0 },
    ]);
  });

  it('hands out an ordered subscriber its batches in creation order, one at a time', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { maxEvents: 1, ordered: true }));
    await s.batches.ingest('pub', 't', evs(1, 2, 3), T);
    const [first] = await s.batches.take({ ...W, now: T });
    expect(shape(first ? [first] : [])).toEqual([{ subscriber: 'a', events: evs(1), attempts: 0 }]);
    expect(await s.batches.take({ ...W, now: T })).toEqual([]);
    expect(await s.batches.nack('w1', first?.id ?? '', T + 1_000, 'HTTP 503')).toBe(true);
    expect(await s.batches.take({ ...W, now: T + 999 })).toEqual([]);
    const again = await s.batches.take({ ...W, now: T + 1_000 });
    expect(shape(again)).toEqual([{ subscriber: 'a', events: evs(1), attempts: 1 }]);
    expect(again[0]?.id).toBe(first?.id);
    await s.batches.ack('w1', first?.id ?? '');
    const second = await s.batches.take({ ...W, now: T + 1_000 });
    expect(shape(second)).toEqual([{ subscriber: 'a', events: evs(2), attempts: 0 }]);
    await s.batches.ack('w1', second[0]?.id ?? '');
    expect(shape(await s.batches.take({ ...W, now: T + 1_000 }))).toEqual([
      { subscriber: 'a', events: evs(3), attempts: 0 },
    ]);
  });

  it('acks and nacks: attempts, retry time, last error, health points, sent; only the holder may', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { timeoutMs: 0 }));
    await s.batches.ingest('pub', 't', evs(1, 2), T);
    const [batch] = await s.batches.take({ ...W, now: T });
    const id = batch?.id ?? '';
    expect(await s.batches.nack('w2', id, T + 100, 'not mine')).toBe(false);
    expect(await s.batches.ack('w2', id)).toBe(false);
    expect(await s.batches.nack('w1', id, T + 100, 'HTTP 500')).toBe(true);
    expect(await s.batches.nack('w1', id, T + 100, 'twice')).toBe(false);
    const failing = (await s.batches.stats()).a;
    expect(failing?.health).toBe(98);
    expect(failing?.lastError?.message).toBe('HTTP 500');
    expect(await s.batches.take({ ...W, now: T + 99 })).toEqual([]);
    const [retried] = await s.batches.take({ ...W, worker: 'w2', now: T + 100 });
    expect(retried).toMatchObject({ id, attempts: 1, lastError: 'HTTP 500', health: 98, createdAt: T });
    expect(await s.batches.ack('w1', id)).toBe(false);
    expect(await s.batches.ack('w2', id)).toBe(true);
    expect(await s.batches.ack('w2', id)).toBe(false);
    expect((await s.batches.stats()).a).toEqual({
      sent: 2,
      queued: 0,
      oldest: null,
      batches: 0,
      health: 99,
      lastError: null,
    });
    await expectKeys(s, catalogKeys({ a: ['t'] }));
  });

  it('recovers batches whose lease ended, and the late worker can no longer settle them', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { timeoutMs: 0 }));
    await s.batches.ingest('pub', 't', evs(1), T);
    const [batch] = await s.batches.take({ ...W, now: T, leaseMs: 1_000 });
    expect(await s.batches.recoverExpired(T + 999, T + 2_000)).toBe(0);
    expect(await s.batches.recoverExpired(T + 1_000, T + 2_000)).toBe(1);
    expect(await s.batches.nack('w1', batch?.id ?? '', T, 'late')).toBe(false);
    expect(await s.batches.take({ ...W, worker: 'w2', now: T + 1_999 })).toEqual([]);
    const [again] = await s.batches.take({ ...W, worker: 'w2', now: T + 2_000 });
    expect(again).toMatchObject({ id: batch?.id, attempts: 1, health: 100 });
    expect(again?.lastError).toBeUndefined();
    expect(await s.batches.ack('w1', batch?.id ?? '')).toBe(false);
    expect(await s.batches.ack('w2', batch?.id ?? '')).toBe(true);
    await expectKeys(s, catalogKeys({ a: ['t'] }));
  });

  it('discards a dead-lettered batch and requeues re-driven events as a new ready batch', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { timeoutMs: 0 }));
    await s.batches.ingest('pub', 't', evs(1, 2), T);
    const [batch] = await s.batches.take({ ...W, now: T });
    expect(await s.batches.discard('w2', batch?.id ?? '')).toBe(false);
    expect(await s.batches.discard('w1', batch?.id ?? '')).toBe(true);
    expect((await s.batches.stats()).a).toEqual({
      sent: 0,
      queued: 0,
      oldest: null,
      batches: 0,
      health: 100,
      lastError: null,
    });
    await expectKeys(s, catalogKeys({ a: ['t'] }));
    await s.batches.requeue('a', evs(1, 2), T + 50);
    await expect(s.batches.requeue('nobody', evs(1), T)).rejects.toThrow(/no subscriber "nobody"/);
    const [redriven] = await s.batches.take({ ...W, now: T + 50 });
    expect(redriven).toMatchObject({ subscriber: 'a', events: evs(1, 2), attempts: 0, createdAt: T + 50 });
    expect(redriven?.id).not.toBe(batch?.id);
  });

  it('drops the oldest early and ready batches first, never pending ones, and counts them', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['ta'], { maxEvents: 1, timeoutMs: 0 }));
    await s.subscribers.saveSubscriber(subscriber('b', ['tb']));
    await s.batches.ingest('pub', 'ta', evs(1), T);
    await s.batches.ingest('pub', 'tb', evs(2, 3), T + 1);
    await s.batches.ingest('pub', 'ta', evs(4), T + 2);
    await s.batches.ingest('pub', 'ta', evs(5), T + 3);
    const [pending] = await s.batches.take({ ...W, limit: 1, now: T + 3 });
    expect(pending?.events).toEqual(evs(1));
    expect(await s.batches.dropOldest(2)).toEqual({ batches: 2, eventsBySubscriber: { b: 2, a: 1 } });
    expect(await s.batches.stats()).toEqual({
      a: { sent: 0, queued: 2, oldest: T, batches: 2, health: 100, lastError: null },
      b: { sent: 0, queued: 0, oldest: null, batches: 0, health: 100, lastError: null },
    });
    await s.batches.ingest('pub', 'tb', evs(6), T + 10);
    expect((await s.batches.stats()).b).toMatchObject({ queued: 1, oldest: T + 10 });
    expect(await s.batches.memoryUsed()).toBeGreaterThan(0);
    expect(await s.batches.dropOldest(10)).toEqual({ batches: 2, eventsBySubscriber: { a: 1, b: 1 } });
    expect(await s.batches.ack('w1', pending?.id ?? '')).toBe(true);
    await expectKeys(s, catalogKeys({ a: ['ta'], b: ['tb'] }));
  });

  it('removes a subscriber with its batches, early, ready and pending', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { maxEvents: 2 }));
    await s.subscribers.saveSubscriber(subscriber('b', ['t'], { maxEvents: 2 }));
    await s.batches.ingest('pub', 't', evs(1, 2, 3, 4, 5), T);
    const taken = await s.batches.take({ ...W, limit: 1, now: T });
    expect(taken.map((b) => b.subscriber)).toEqual(['a']);
    expect(await s.subscribers.removeSubscriber('a')).toBe(true);
    expect(await s.subscribers.removeSubscriber('a')).toBe(false);
    expect(await s.subscribers.getSubscriber('a')).toBeUndefined();
    expect(await s.batches.ack('w1', taken[0]?.id ?? '')).toBe(false);
    expect(Object.keys(await s.batches.stats())).toEqual(['b']);
    const ofB = await s.batches.take({ ...W, now: T + 500 });
    expect(ofB.map((b) => b.subscriber)).toEqual(['b', 'b']);
    expect(await s.batches.promoteDue(T + 500)).toBe(1);
    expect(await s.batches.ingest('pub', 't', evs(6), T + 600)).toEqual({ ok: true, subscribers: 1 });
    expect(await s.batches.dropOldest(10)).toEqual({ batches: 2, eventsBySubscriber: { b: 2 } });
    for (const b of ofB) expect(await s.batches.ack('w1', b.id)).toBe(true);
    expect((await s.batches.stats()).b).toEqual({
      sent: 4,
      queued: 0,
      oldest: null,
      batches: 0,
      health: 100,
      lastError: null,
    });
    await expectKeys(s, catalogKeys({ b: ['t'] }));
  });

  it('removes topics with their subscriptions, and unsubscribes one topic', async () => {
    const s = open();
    await s.topics.ensureTopics(['t1', 'lonely']);
    await s.topics.ensureTopics(['t1']);
    await s.subscribers.saveSubscriber(subscriber('a', ['t1', 't2']));
    expect((await s.topics.listTopics()).map((t) => t.name)).toEqual(['lonely', 't1', 't2']);
    expect(await s.topics.removeTopic('t1')).toBe(true);
    expect(await s.topics.removeTopic('t1')).toBe(false);
    expect((await s.subscribers.getSubscriber('a'))?.topics).toEqual(['t2']);
    expect(await s.batches.ingest('pub', 't1', evs(1), T)).toEqual({ ok: true, subscribers: 0 });
    expect(await s.subscribers.unsubscribe('nobody', 't2')).toBe('no-subscriber');
    expect(await s.subscribers.unsubscribe('a', 't1')).toBe('not-subscribed');
    expect(await s.subscribers.unsubscribe('a', 't2')).toBe('removed');
    expect(await s.batches.ingest('pub', 't2', evs(2), T)).toEqual({ ok: true, subscribers: 0 });
    expect((await s.subscribers.getSubscriber('a'))?.topics).toEqual([]);
    expect(await s.topics.listTopics()).toEqual([
      { name: 'lonely', publisher: null, events: 0 },
      { name: 't1', publisher: 'pub', events: 1 },
      { name: 't2', publisher: 'pub', events: 1 },
    ]);
    await expectKeys(s, ['topics', 'topic-events', 'subscribers', 's:a']);
  });

  it('replaces a subscriber keeping its queue and figures, and lists subscribers by name', async () => {
    const s = open();
    const b = subscriber('b', ['t'], { ordered: true });
    await s.subscribers.saveSubscriber(b);
    await s.subscribers.saveSubscriber(subscriber('a', ['t']));
    await s.batches.ingest('pub', 't', evs(1), T);
    const changed = { ...b, callback: 'https://b.example.test/v2', topics: ['u', 't'], maxEvents: 1 };
    await s.subscribers.saveSubscriber(changed);
    expect(await s.subscribers.getSubscriber('b')).toEqual({ ...changed, topics: ['t', 'u'] });
    expect((await s.subscribers.listSubscribers()).map((x) => x.name)).toEqual(['a', 'b']);
    expect((await s.batches.stats()).b).toMatchObject({ queued: 1, batches: 1, oldest: T });
    // Its early batch, over the new maxEvents, goes out first, alone, then the next.
    await s.batches.ingest('pub', 't', evs(2), T + 1);
    const [first] = await s.batches.take({ ...W, now: T + 1 });
    expect(first).toMatchObject({ subscriber: 'b', events: evs(1) });
    expect(await s.batches.take({ ...W, now: T + 1 })).toEqual([]);
    await s.batches.ack('w1', first?.id ?? '');
    expect(shape(await s.batches.take({ ...W, now: T + 1 }))).toEqual([
      { subscriber: 'b', events: evs(2), attempts: 0 },
    ]);
  });

  it('stores tokens by hash, refuses a duplicate hash, lists oldest first and removes them', async () => {
    const s = open();
    const t1 = { name: 'svc', hash: 'b'.repeat(64), hint: 'svc--1a…', createdAt: T + 5 };
    const t2 = { name: 'svc', hash: 'a'.repeat(64), hint: 'svc--2b…', createdAt: T + 9 };
    const t0 = { name: 'other', hash: 'c'.repeat(64), hint: 'oth…', createdAt: T };
    expect(await s.tokens.addToken(t1)).toBe(true);
    expect(await s.tokens.addToken(t2)).toBe(true);
    expect(await s.tokens.addToken(t0)).toBe(true);
    expect(await s.tokens.addToken({ ...t1, name: 'thief' })).toBe(false);
    expect(await s.tokens.findToken(t1.hash)).toEqual(t1);
    expect(await s.tokens.findToken('d'.repeat(64))).toBeUndefined();
    expect(await s.tokens.listTokens()).toEqual([t0, t1, t2]);
    expect(await s.tokens.removeToken(t1.hash)).toEqual(t1);
    expect(await s.tokens.removeToken(t1.hash)).toBeUndefined();
    expect(await s.tokens.listTokens()).toEqual([t0, t2]);
    await expectKeys(s, ['tokens']);
  });

  it('wakes a waiting worker when a batch becomes ready, and times out otherwise', async () => {
    const s = open();
    await s.subscribers.saveSubscriber(subscriber('a', ['t'], { timeoutMs: 0 }));
    let started = Date.now();
    await s.batches.waitForWork(100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    started = Date.now();
    // Whichever reaches the store first, the wait ends at the ingest:
    const waiting = s.batches.waitForWork(5_000);
    await s.batches.ingest('pub', 't', evs(1), T);
    await waiting;
    expect(Date.now() - started).toBeLessThan(1_000);
    // A wake-up that came while nobody waited is kept for the next wait.
    await s.batches.ingest('pub', 't', evs(2), T);
    started = Date.now();
    await s.batches.waitForWork(5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
