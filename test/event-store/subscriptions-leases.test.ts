/**
 * Durable subscriptions across consumers and over time: one consumer per
 * name (a second store on the database, as another process, stands by and
 * takes over at the checkpoint), a graceful stop that lets the handler in
 * flight finish and hands over at once, `store.close()` stopping them,
 * pruning that keeps what a subscription has not consumed, a halt when the
 * history it needs was pruned before, and `remove`.
 */
import { expect, it } from 'vitest';
import {
  EventStoreUsageError,
  type Subscription,
  SubscriptionHaltedError,
  type SubscriptionHandler,
  SubscriptionRowEntity,
} from '../../src/event-store/index.js';
import type { EventStore } from '../../src/index.js';
import { items } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const FAST = { pollMs: 10, takeoverMs: 20, retryDelayMs: 10, maxRetryDelayMs: 40 } as const;

const add = (store: EventStore, id: string) =>
  store.dispatch('ITEM.RESULT', { sav: [{ id, name: id, qty: 1 }] }, { wait: true });

const start = (store: EventStore, name: string, handle: SubscriptionHandler, leaseMs = 60_000) =>
  store.subscriptions.start({ ...FAST, leaseMs, name, handle });

/** A gate a handler waits at: `entered` resolves when it is reached, `open()` lets it through. */
function gate() {
  let open: () => void = () => {};
  let entered: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const pass = () => {
    entered();
    return opened;
  };
  return { reached, open, pass };
}

describeOnBothDatabases('event store subscription leases', (bed) => {
  it('one consumer per name: the other stands by, and on a graceful stop takes over at the checkpoint, each event once', async () => {
    const writer = await bed.start({ models: [items] });
    const other = bed.create({ models: [items] }); // another process: not the writer
    for (const id of ['a', 'b', 'c']) await add(writer, id);
    const seen: { by: string; v: number }[] = [];
    const order: string[] = [];
    const slow = gate();
    const first = await start(writer, 'audit', async (event) => {
      if (event.v === 4) {
        await slow.pass();
        order.push('v4 handled');
      }
      seen.push({ by: 'first', v: event.v });
    });
    await first.caughtUp({ pollMs: 10 });
    const second = await start(other, 'audit', (event) => {
      seen.push({ by: 'second', v: event.v });
    });
    expect([first.isConsuming, second.isConsuming]).toEqual([true, false]);
    expect((await other.subscriptions.status('audit'))?.owner).toContain(`:${process.pid}:`);

    await add(writer, 'd');
    await slow.reached;
    // Stop while the handler of v4 runs: the stop waits for it, stores v4 and lets the lease go.
    const stopping = first.stop().then(() => order.push('stopped'));
    // Room for a stop that did not wait to finish first (a pause can only hide that failure, never cause one).
    await new Promise((resolve) => setTimeout(resolve, 50));
    slow.open();
    await stopping;
    expect(order).toEqual(['v4 handled', 'stopped']);
    expect(first.isConsuming).toBe(false);
    expect((await writer.subscriptions.status('audit'))?.position).toBe(4);

    // The lease is 60 s: only the release lets the other take over now.
    for (const id of ['e', 'f']) await add(writer, id);
    expect(await second.caughtUp({ timeoutMs: 20_000, pollMs: 10 })).toBe(6);
    expect(second.isConsuming).toBe(true);
    expect(seen).toEqual([
      ...[1, 2, 3, 4].map((v) => ({ by: 'first', v })),
      { by: 'second', v: 5 },
      { by: 'second', v: 6 },
    ]);
  });

  it('store.close() stops the subscriptions started on it and lets their leases go', async () => {
    const writer = await bed.start({ models: [items] });
    const watcher = bed.create({ models: [items] });
    await add(writer, 'a');
    const running = await start(watcher, 'closing', () => {});
    await running.caughtUp({ pollMs: 10 });
    expect((await writer.subscriptions.status('closing'))?.owner).toBeDefined();
    await watcher.close();
    expect(running.isConsuming).toBe(false);
    expect(await writer.subscriptions.status('closing')).toMatchObject({ position: 1 });
    expect((await writer.subscriptions.status('closing'))?.owner).toBeUndefined();
    await expect(watcher.subscriptions.start({ name: 'late', handle: () => {} })).rejects.toThrow(
      EventStoreUsageError,
    );
  });

  it('a consumer whose lease another process took writes no checkpoint; the taker goes on from the stored one', async () => {
    const writer = await bed.start({ models: [items] });
    const other = bed.create({ models: [items] });
    await add(writer, 'a');
    const slow = gate();
    const seen: { by: string; v: number }[] = [];
    const first = await start(writer, 'taken', async (event) => {
      if (event.v === 2) await slow.pass();
      seen.push({ by: 'first', v: event.v });
    });
    await first.caughtUp({ pollMs: 10 });
    const second = await start(other, 'taken', (event) => {
      seen.push({ by: 'second', v: event.v });
    });
    await add(writer, 'b');
    await slow.reached;
    // As if the first process froze past its lease: the row's lease runs out.
    const table = bed.dataSource.getMetadata(SubscriptionRowEntity).tablePath;
    await bed.read((m) => m.query(`UPDATE ${table} SET lease_until = 0`));
    await waitFor('the other to take the lease', () => second.isConsuming, { intervalMs: 10 });
    expect(await second.caughtUp({ timeoutMs: 20_000, pollMs: 10 })).toBe(2);
    slow.open();
    await waitFor('the first to let go', () => !first.isConsuming, { intervalMs: 10 });
    await add(writer, 'c');
    expect(await second.caughtUp({ pollMs: 10 })).toBe(3);
    // v2 came twice (at least once), the first's late checkpoint was refused, v3 once.
    expect(seen.filter((s) => s.v === 2).map((s) => s.by)).toEqual(['second', 'first']);
    expect(seen.filter((s) => s.v === 3)).toEqual([{ by: 'second', v: 3 }]);
    expect((await other.subscriptions.status('taken'))?.position).toBe(3);
  });

  it('prune keeps the history a subscription has not consumed (halted or stopped too); remove lets it go', async () => {
    const store = await bed.start({ models: [items] });
    for (const id of ['a', 'b', 'c']) await add(store, id);
    const first: Subscription = await start(store, 'slowpoke', () => {});
    await first.caughtUp({ pollMs: 10 });
    await first.stop();
    for (const id of ['d', 'e']) await add(store, id);

    expect(await store.prune({})).toBe(3);
    expect((await store.history(1, 5)).map((e) => e.v)).toEqual([4, 5]);
    const seen: number[] = [];
    const again = await start(store, 'slowpoke', (event) => {
      seen.push(event.v);
    });
    expect(await again.caughtUp({ pollMs: 10 })).toBe(5);
    expect(seen).toEqual([4, 5]);

    await expect(store.subscriptions.remove('slowpoke')).rejects.toThrow(/is running in .*: stop it there/);
    await again.stop();
    await add(store, 'f');
    expect(await store.prune({})).toBe(2);
    expect(await store.subscriptions.remove('slowpoke')).toBe(true);
    expect(await store.subscriptions.remove('slowpoke')).toBe(false);
    expect(await store.prune({})).toBe(1);
    expect(await store.subscriptions.list()).toEqual([]);
  });

  it('history pruned before a subscription read it halts it, saying so, instead of skipping it', async () => {
    const store = await bed.start({ models: [items] });
    for (const id of ['a', 'b', 'c']) await add(store, id);
    await store.dispatch('ITEM.RESULT', { sav: [{ id: 'd' }] }, { important: true });
    await add(store, 'e');
    expect(await store.prune({ keepLast: 1 })).toBe(3); // v4 is important, v5 the last
    const seen: number[] = [];
    const late = await start(store, 'late', (event) => {
      seen.push(event.v);
    });
    const halted = await late.caughtUp({ pollMs: 10 }).catch((e: unknown) => e);
    expect(halted).toBeInstanceOf(SubscriptionHaltedError);
    expect((halted as Error).message).toContain('history from v1 it has not consumed is gone');
    expect((await store.subscriptions.status('late'))?.error).toMatchObject({ reason: 'gap', v: 1 });
    expect((await store.subscriptions.status('late'))?.error?.message).toMatch(/v1\.\.v3 are missing/);
    expect(seen).toEqual([]);

    await store.subscriptions.reset('late', { from: 4, by: 'ops', reason: 'v1..v3 are in the old system' });
    expect(await late.caughtUp({ pollMs: 10 })).toBe(5);
    expect(seen).toEqual([4, 5]);
  });
});
