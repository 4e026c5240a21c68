/**
 * Durable subscriptions, consuming: `store.subscriptions.start` gives a
 * handler the history in version order from where it starts, follows new
 * events, filters by type and status while its checkpoint passes the rest,
 * retries a failing event with backoff and halts at it after `maxAttempts`,
 * never stepping over it on its own. Outcomes are what the handler saw and
 * the checkpoint row in `commitbus_es_subscriptions`.
 */
import { expect, it } from 'vitest';
import {
  EventStoreUsageError,
  type SubscriptionContext,
  SubscriptionHaltedError,
  SubscriptionHandlerTimeoutError,
  type SubscriptionOptions,
  SubscriptionRowEntity,
  SubscriptionTimeoutError,
} from '../../src/event-store/index.js';
import type { EventStore, HistoryEvent } from '../../src/index.js';
import { items, pairs } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';
import { waitFor } from '../helpers/wait-for.js';

// Short waits: a consumer looks every 10 ms, retries after 10 ms (at most 40).
const FAST = { pollMs: 10, takeoverMs: 20, leaseMs: 5_000, retryDelayMs: 10, maxRetryDelayMs: 40 } as const;

type SubOptions = Omit<SubscriptionOptions, 'handle'> & Partial<Pick<SubscriptionOptions, 'handle'>>;

/** Starts a subscription whose handler records each event (after `handle`, if given, succeeds). */
async function subscribe(store: EventStore, options: SubOptions) {
  const seen: HistoryEvent[] = [];
  const tries: { v: number; attempt: number }[] = [];
  const subscription = await store.subscriptions.start({
    ...FAST,
    ...options,
    handle: async (event, ctx: SubscriptionContext) => {
      tries.push({ v: event.v, attempt: ctx.attempt });
      await options.handle?.(event, ctx);
      seen.push(event);
    },
  });
  return { subscription, seen, tries, versions: () => seen.map((e) => e.v) };
}

const add = (store: EventStore, id: string) =>
  store.dispatch('ITEM.RESULT', { sav: [{ id, name: id, qty: 1 }] }, { wait: true });

describeOnBothDatabases('event store subscriptions', (bed) => {
  it('catches up from v1, follows new events in order with their history, and stores its checkpoint', async () => {
    const store = await bed.start({ models: [items] });
    for (const id of ['a', 'b', 'c']) await add(store, id);
    const { subscription, seen, versions } = await subscribe(store, { name: 'mirror' });
    expect(await subscription.caughtUp({ timeoutMs: 10_000, pollMs: 10 })).toBe(3);
    expect(versions()).toEqual([1, 2, 3]);
    expect(seen[0]).toMatchObject({
      v: 1,
      type: 'ITEM.RESULT',
      status: 'handled',
      data: { sav: [{ id: 'a' }] },
    });
    expect(seen[0]?.result).toEqual({ items: { sav: [{ id: 'a', name: 'a', qty: 1 }] } });

    for (const id of ['d', 'e']) await add(store, id);
    expect(await subscription.caughtUp({ timeoutMs: 10_000, pollMs: 10 })).toBe(5);
    expect(versions()).toEqual([1, 2, 3, 4, 5]);
    const [status] = await store.subscriptions.list();
    expect(status).toMatchObject({ name: 'mirror', position: 5, lag: 0, status: 'active', attempts: 0 });
    expect(status?.owner).toContain(`:${process.pid}:`);
    expect(status?.error).toBeUndefined();
    const rows = await bed.rows(SubscriptionRowEntity);
    expect(rows).toMatchObject([{ name: 'mirror', position: 5, status: 'active', error: null }]);
  });

  it("starts at 'end' or at a version; an existing checkpoint wins over `from` when started again", async () => {
    const store = await bed.start({ models: [items] });
    for (const id of ['a', 'b', 'c', 'd']) await add(store, id);
    const tail = await subscribe(store, { name: 'tail', from: 'end' });
    const mid = await subscribe(store, { name: 'mid', from: 3 });
    expect(await mid.subscription.caughtUp({ pollMs: 10 })).toBe(4);
    expect(await tail.subscription.caughtUp({ pollMs: 10 })).toBe(4);
    expect([tail.versions(), mid.versions()]).toEqual([[], [3, 4]]);

    await add(store, 'e');
    await tail.subscription.caughtUp({ pollMs: 10 });
    await mid.subscription.caughtUp({ pollMs: 10 });
    expect([tail.versions(), mid.versions()]).toEqual([[5], [3, 4, 5]]);

    await mid.subscription.stop();
    const again = await subscribe(store, { name: 'mid', from: 'beginning' });
    await add(store, 'f');
    expect(await again.subscription.caughtUp({ pollMs: 10 })).toBe(6);
    expect(again.versions()).toEqual([6]);
  });

  it('started before anything was ever dispatched (no state rows yet), it waits quietly, then consumes', async () => {
    const reader = bed.create({ models: [items] }); // never started: its tables are untouched
    const { subscription, versions } = await subscribe(reader, { name: 'early' });
    await waitFor('it to hold the lease', () => subscription.isConsuming, { intervalMs: 10 });
    const writer = await bed.start({ models: [items] });
    await add(writer, 'a');
    expect(await subscription.caughtUp({ pollMs: 10 })).toBe(1);
    expect(versions()).toEqual([1]);
    expect(bed.logs.filter((l) => l.message.includes('"early" consumes here'))).toHaveLength(1);
    expect(bed.logs.filter((l) => l.level !== 'info')).toEqual([]);
  });

  it('types and statuses choose what the handler gets; the checkpoint passes the rest', async () => {
    const store = await bed.start({ models: [items, pairs], retryDelayMs: 60_000 });
    await add(store, 'a');
    // v2 inserts an existing row: it halts the store, and an operator skips it.
    const bad = await store.dispatch('ITEM.RESULT', { ins: [{ id: 'a' }] }, { wait: false });
    await expect(store.handledVersion(bad.v)).rejects.toThrow(/failed/);
    await store.skip(bad.v, { by: 'test', reason: 'a duplicate' });
    await store.dispatch('PAIR.RESULT', { sav: [{ a: 'x', b: 'y', value: 1 }] });
    await add(store, 'b');

    const all = await subscribe(store, { name: 'all' });
    const skipped = await subscribe(store, { name: 'skipped', statuses: ['skipped'] });
    const pairsOnly = await subscribe(store, { name: 'pairs', types: ['PAIR.RESULT'] });
    for (const s of [all, skipped, pairsOnly]) expect(await s.subscription.caughtUp({ pollMs: 10 })).toBe(4);
    expect(all.versions()).toEqual([1, 3, 4]);
    expect(skipped.seen.map((e) => [e.v, e.status])).toEqual([[2, 'skipped']]);
    expect(pairsOnly.seen.map((e) => [e.v, e.type])).toEqual([[3, 'PAIR.RESULT']]);
  });

  it('a failing handler is retried with backoff; the checkpoint moves only past events it finished', async () => {
    const store = await bed.start({ models: [items] });
    for (const id of ['a', 'b', 'c']) await add(store, id);
    let failures = 2;
    const { subscription, tries, versions } = await subscribe(store, {
      name: 'flaky',
      handle: (event) => {
        if (event.v === 2 && failures-- > 0) throw new Error('the mail server is down');
      },
    });
    expect(await subscription.caughtUp({ timeoutMs: 10_000, pollMs: 10 })).toBe(3);
    expect(versions()).toEqual([1, 2, 3]);
    expect(tries).toEqual([
      { v: 1, attempt: 1 },
      { v: 2, attempt: 1 },
      { v: 2, attempt: 2 },
      { v: 2, attempt: 3 },
      { v: 3, attempt: 1 },
    ]);
    const retried = bed.logs.filter((l) => l.message.includes('subscription "flaky" failed v2; retrying'));
    expect(retried).toHaveLength(2);
    expect(await store.subscriptions.status('flaky')).toMatchObject({ position: 3, attempts: 0 });
  });

  it('a handler that has not settled after handlerTimeoutMs fails that try, its signal aborted, and is tried again', async () => {
    const store = await bed.start({ models: [items] });
    await add(store, 'a');
    const signals: AbortSignal[] = [];
    const { subscription, tries, versions } = await subscribe(store, {
      name: 'hung',
      handlerTimeoutMs: 50,
      handle: (_event, ctx) => {
        signals.push(ctx.signal);
        if (ctx.attempt === 1) return new Promise(() => {}); // never settles
      },
    });
    expect(await subscription.caughtUp({ pollMs: 10 })).toBe(1);
    expect(tries).toEqual([
      { v: 1, attempt: 1 },
      { v: 1, attempt: 2 },
    ]);
    expect(versions()).toEqual([1]);
    expect(signals[0]?.reason).toBeInstanceOf(SubscriptionHandlerTimeoutError);
    expect(signals[1]?.aborted).toBe(false);
    const retried = bed.logs.find((l) => l.message.includes('subscription "hung" failed v1; retrying'));
    expect(retried?.fields).toMatchObject({
      error: expect.stringContaining('had not settled on v1 after 50 ms'),
    });
  });

  it('halts after maxAttempts, saying why; nothing after it is consumed until resumed or reset', async () => {
    const store = await bed.start({ models: [items] });
    for (const id of ['a', 'b', 'c']) await add(store, id);
    const broken = { on: true };
    const { subscription, tries, versions } = await subscribe(store, {
      name: 'mailer',
      maxAttempts: 3,
      handle: (event) => {
        if (event.v === 2 && broken.on) throw new TypeError('template "welcome" is missing');
      },
    });
    const halted = await subscription.caughtUp({ pollMs: 10 }).catch((e: unknown) => e);
    expect(halted).toBeInstanceOf(SubscriptionHaltedError);
    expect(halted).toMatchObject({ code: 'COMMITBUS_SUBSCRIPTION_HALTED', subscription: 'mailer' });
    expect((halted as Error).message).toContain(
      'subscription "mailer" is halted: its handler failed v2 (ITEM.RESULT) 3 times, last with TypeError: template "welcome" is missing',
    );
    expect(tries.filter((t) => t.v === 2).map((t) => t.attempt)).toEqual([1, 2, 3]);
    const status = await store.subscriptions.status('mailer');
    expect(status).toMatchObject({ position: 1, lag: 2, status: 'halted', attempts: 3 });
    expect(status?.error).toMatchObject({ reason: 'handler', v: 2, name: 'TypeError', attempts: 3 });
    expect(status?.owner).toBeUndefined();
    expect(bed.logs.some((l) => l.level === 'error' && l.message.includes('"mailer" halted at v2'))).toBe(
      true,
    );

    // Halted, it stays put (any process would: the row says so) while the store goes on.
    await add(store, 'd');
    await expect(store.subscriptions.caughtUp('mailer', { pollMs: 10 })).rejects.toBeInstanceOf(
      SubscriptionHaltedError,
    );
    expect(versions()).toEqual([1]);

    broken.on = false;
    expect(
      await store.subscriptions.resume('mailer', { by: 'ops', reason: 'template deployed' }),
    ).toMatchObject({
      status: 'active',
      attempts: 0,
      position: 1,
    });
    expect(await subscription.caughtUp({ pollMs: 10 })).toBe(4);
    expect(versions()).toEqual([1, 2, 3, 4]);
    expect(bed.logs.some((l) => l.message.includes('operator resume of subscription "mailer"'))).toBe(true);
  });

  it('reset steps over the event it halted at, or rewinds to consume history again', async () => {
    const store = await bed.start({ models: [items] });
    for (const id of ['a', 'b', 'c']) await add(store, id);
    const { subscription, versions } = await subscribe(store, {
      name: 'strict',
      maxAttempts: 1,
      handle: (event) => {
        if (event.v === 2 && versions().length < 3) throw new Error('v2 is poison');
      },
    });
    await expect(subscription.caughtUp({ pollMs: 10 })).rejects.toThrow(SubscriptionHaltedError);
    await store.subscriptions.reset('strict', { from: 3, by: 'ops' });
    expect(await subscription.caughtUp({ pollMs: 10 })).toBe(3);
    expect(versions()).toEqual([1, 3]);

    await store.subscriptions.reset('strict', { from: 'beginning' });
    expect(await subscription.caughtUp({ pollMs: 10 })).toBe(3);
    expect(versions()).toEqual([1, 3, 1, 2, 3]);
  });

  it('refuses misuse with EventStoreUsageError, and a wait that runs out with SubscriptionTimeoutError', async () => {
    const store = await bed.start({ models: [items] });
    await subscribe(store, { name: 'once' });
    await expect(subscribe(store, { name: 'once' })).rejects.toThrow(
      /"once" is already started on this store/,
    );
    const bad = [
      { name: '' },
      { name: 'x', from: 0 },
      { name: 'x', batchSize: 0 },
      { name: 'x', statuses: ['queued'] },
    ] as unknown as SubOptions[];
    for (const options of bad) await expect(subscribe(store, options)).rejects.toThrow(EventStoreUsageError);
    await expect(store.subscriptions.caughtUp('nobody')).rejects.toThrow(/no subscription named "nobody"/);
    await expect(store.subscriptions.resume('nobody')).rejects.toThrow(EventStoreUsageError);

    // A subscription nobody runs (stopped) does not move: a bounded wait says so.
    const idle = await subscribe(store, { name: 'idle' });
    await idle.subscription.stop();
    await add(store, 'a');
    const late = await store.subscriptions.caughtUp('idle', { timeoutMs: 50, pollMs: 10 }).catch((e) => e);
    expect(late).toBeInstanceOf(SubscriptionTimeoutError);
    expect(late).toMatchObject({ code: 'COMMITBUS_SUBSCRIPTION_TIMEOUT', v: 1, position: 0 });
  });
});
