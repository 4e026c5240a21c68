/**
 * Per-key ordering through the public API, on both transports: events of one
 * order key are handled one at a time in publish order with linked seq/prev,
 * other keys in parallel; a failing event holds back only its key; after the
 * last attempt a key halts (default) or skips; halted keys are listed,
 * re-driven and skipped by an operator; async handlers see each key's events
 * in order too.
 */
import { describe, expect, it } from 'vitest';
import {
  defineHandler,
  Event,
  type EventHandlersConfig,
  EventType,
  InvalidOrderKeyError,
  NonRetryableError,
} from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

@EventType('ITEM.CHANGE', { orderBy: (e: ItemChanged) => `item:${e.item}` })
class ItemChanged extends Event {
  item!: number;
  n!: number;
}

@EventType('LEDGER.ENTRY', { orderBy: (e: LedgerEntry) => `ledger:${e.item}`, afterLastAttempt: 'skip' })
class LedgerEntry extends Event {
  item!: number;
  n!: number;
}

@EventType('NOTE.ADD')
class NoteAdded extends Event {
  item!: number;
  n!: number;
}

const EVENTS = [ItemChanged, LedgerEntry, NoteAdded];
const bed = redisTestBed('ordering');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the handlers saw, per order key: `n`, seq and prev, in handling order. */
class Seen {
  readonly runs: { handler: string; key: string; n: number; seq?: number; prev?: number }[] = [];

  record(handler: string, event: ItemChanged | LedgerEntry | NoteAdded): void {
    const o = event.ordering;
    this.runs.push({
      handler,
      key: o?.key ?? '',
      n: event.n,
      ...(o !== undefined ? { seq: o.seq } : {}),
      ...(o?.prev !== undefined ? { prev: o.prev } : {}),
    });
  }

  of(handler: string, key: string) {
    return this.runs.filter((r) => r.handler === handler && r.key === key);
  }

  ns(handler: string, key: string): number[] {
    return this.of(handler, key).map((r) => r.n);
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.each(TRANSPORT_NAMES)('ordered events on %s', (transport) => {
  let buses = 0;
  const config = (overrides = {}) =>
    fastConfig({
      prefix: bed.prefix,
      name: `${transport}${++buses}`,
      delayedPollMs: 20,
      ...overrides,
    });

  async function start(handlers: EventHandlersConfig, overrides = {}) {
    return bed.buses.start({
      events: EVENTS,
      handlers,
      config: config(overrides),
      transport: testTransport(transport),
    });
  }

  it('handles each key one event at a time in publish order, with seq and prev linked, and keys in parallel', async () => {
    const seen = new Seen();
    const inFlight = new Map<string, number>();
    let maxPerKey = 0;
    let now = 0;
    let maxOverall = 0;
    const { bus } = await start({
      ITEM: [
        [
          defineHandler<ItemChanged>('item.sync', async (e) => {
            const key = e.ordering?.key ?? '';
            inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
            now++;
            maxPerKey = Math.max(maxPerKey, inFlight.get(key) ?? 0);
            maxOverall = Math.max(maxOverall, now);
            await pause(2);
            seen.record('item.sync', e);
            now--;
            inFlight.set(key, (inFlight.get(key) ?? 0) - 1);
          }),
          true,
        ],
      ],
    });
    for (let n = 1; n <= 30; n++) {
      await bus.publish([1, 2, 3, 4].map((item) => ItemChanged.create({ item, n })));
    }
    await bus.whenIdle(15_000);

    expect(maxPerKey).toBe(1);
    expect(maxOverall).toBeGreaterThan(1);
    const seqs: number[] = [];
    for (const item of [1, 2, 3, 4]) {
      const runs = seen.of('item.sync', `item:${item}`);
      expect(runs.map((r) => r.n)).toEqual(range(1, 30));
      expect(runs[0]?.prev).toBeUndefined();
      for (let i = 1; i < runs.length; i++) {
        expect(runs[i]?.prev).toBe(runs[i - 1]?.seq);
        expect(runs[i]?.seq ?? 0).toBeGreaterThan(runs[i - 1]?.seq ?? 0);
      }
      seqs.push(...runs.map((r) => r.seq ?? 0));
    }
    // seq is unique across the bus.
    expect(new Set(seqs).size).toBe(120);
    expect(await bus.ordering.pending()).toBe(0);
  });

  it("runs an ordered event's async handlers in per-key order, each lane on its own", async () => {
    const seen = new Seen();
    const { bus } = await start({
      ITEM: [
        defineHandler<ItemChanged>('item.slow', async (e) => {
          await pause(Math.random() * 4);
          seen.record('item.slow', e);
        }),
        { handler: defineHandler<ItemChanged>('item.fast', (e) => seen.record('item.fast', e)), sync: false },
        [defineHandler<ItemChanged>('item.first', (e) => seen.record('item.first', e)), true],
      ],
    });
    for (let n = 1; n <= 25; n++)
      await bus.publish([ItemChanged.create({ item: 1, n }), ItemChanged.create({ item: 2, n })]);
    await bus.whenIdle(15_000);

    for (const key of ['item:1', 'item:2']) {
      for (const handler of ['item.first', 'item.slow', 'item.fast']) {
        expect(seen.ns(handler, key)).toEqual(range(1, 25));
      }
      // Async handlers see the seq and prev the sync lane assigned.
      expect(seen.of('item.fast', key).map((r) => [r.seq, r.prev])).toEqual(
        seen.of('item.first', key).map((r) => [r.seq, r.prev]),
      );
    }
  });

  it('holds back only the failing key while it retries, then goes on in order', async () => {
    const seen = new Seen();
    let failures = 0;
    const { bus } = await start({
      ITEM: [
        {
          handler: defineHandler<ItemChanged>('item.flaky', (e) => {
            if (e.item === 1 && e.n === 2 && failures < 2) {
              failures++;
              throw new Error('flaky');
            }
            seen.record('item.flaky', e);
          }),
          sync: true,
          attempts: 3,
          backoff: { type: 'fixed', delayMs: 150 },
        },
      ],
    });
    await bus.publish(range(1, 5).map((n) => ItemChanged.create({ item: 1, n })));
    await bus.publish(range(1, 5).map((n) => ItemChanged.create({ item: 2, n })));
    // Key 2 is done while key 1 still waits for its retries.
    await waitFor('key item:2 handled', () => seen.ns('item.flaky', 'item:2').length === 5);
    expect(seen.ns('item.flaky', 'item:1')).toEqual([1]);
    await bus.whenIdle(10_000);
    expect(failures).toBe(2);
    expect(seen.ns('item.flaky', 'item:1')).toEqual(range(1, 5));
    const [first, second] = seen.of('item.flaky', 'item:1');
    expect(second?.prev).toBe(first?.seq);
  });

  it('halts a key after the last attempt, lists it, and re-drives it in order', async () => {
    const seen = new Seen();
    let broken = true;
    const { bus } = await start({
      ITEM: [
        {
          handler: defineHandler<ItemChanged>('item.strict', (e) => {
            if (broken && e.item === 1 && e.n === 3) throw new Error('cannot apply change 3');
            seen.record('item.strict', e);
          }),
          sync: true,
          attempts: 2,
        },
        {
          handler: defineHandler<ItemChanged>('item.after', (e) => seen.record('item.after', e)),
          sync: true,
        },
      ],
    });
    await bus.publish(range(1, 6).map((n) => ItemChanged.create({ item: 1, n })));
    await bus.publish(range(1, 3).map((n) => ItemChanged.create({ item: 2, n })));
    await waitFor('key item:1 halted', async () => (await bus.ordering.halted()).length === 1);
    await bus.whenIdle(10_000); // halted work counts as idle

    const [halted] = await bus.ordering.halted();
    expect(halted).toMatchObject({
      key: 'item:1',
      lane: 'sync',
      handler: 'item.strict',
      handlingKey: 'ITEM.CHANGE',
      reason: 'exhausted',
      error: 'cannot apply change 3',
      attempts: 2,
      waiting: 4,
    });
    expect(seen.ns('item.strict', 'item:1')).toEqual([1, 2]);
    expect(seen.ns('item.after', 'item:1')).toEqual([1, 2]);
    expect(seen.ns('item.strict', 'item:2')).toEqual([1, 2, 3]);
    expect(await bus.deadLetters.list()).toEqual([]);

    broken = false;
    expect(await bus.ordering.redrive('item:2')).toBe(0);
    expect(await bus.ordering.redrive('item:1')).toBe(1);
    await bus.whenIdle(10_000);
    expect(await bus.ordering.halted()).toEqual([]);
    expect(seen.ns('item.strict', 'item:1')).toEqual(range(1, 6));
    expect(seen.ns('item.after', 'item:1')).toEqual(range(1, 6));
    const runs = seen.of('item.strict', 'item:1');
    for (let i = 1; i < runs.length; i++) expect(runs[i]?.prev).toBe(runs[i - 1]?.seq);
  });

  it('skips a key past a given-up handler for a class with afterLastAttempt: skip, keeping a dead letter', async () => {
    const seen = new Seen();
    const { bus } = await start({
      LEDGER: [
        {
          handler: defineHandler<LedgerEntry>('ledger.post', (e) => {
            if (e.n === 2) throw new NonRetryableError('entry 2 is invalid');
            seen.record('ledger.post', e);
          }),
          sync: true,
        },
        {
          handler: defineHandler<LedgerEntry>('ledger.audit', (e) => seen.record('ledger.audit', e)),
          sync: true,
        },
      ],
    });
    await bus.publish(range(1, 4).map((n) => LedgerEntry.create({ item: 7, n })));
    await bus.whenIdle(10_000);

    expect(seen.ns('ledger.post', 'ledger:7')).toEqual([1, 3, 4]);
    expect(seen.ns('ledger.audit', 'ledger:7')).toEqual([1, 2, 3, 4]);
    expect(await bus.ordering.halted()).toEqual([]);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason, l.error])).toEqual([
      ['ledger.post', 'non-retryable', 'entry 2 is invalid'],
    ]);
  });

  it('lets an operator skip the halted event of a key: its handler becomes a dead letter and the key goes on', async () => {
    const seen = new Seen();
    const { bus } = await start({
      ITEM: [
        {
          handler: defineHandler<ItemChanged>('item.async', (e) => {
            if (e.n === 2) throw new NonRetryableError('change 2 is poison');
            seen.record('item.async', e);
          }),
          sync: false,
        },
        { handler: defineHandler<ItemChanged>('item.sync', (e) => seen.record('item.sync', e)), sync: true },
      ],
    });
    await bus.publish(range(1, 4).map((n) => ItemChanged.create({ item: 3, n })));
    await waitFor('the async lane halted', async () => (await bus.ordering.halted()).length === 1);
    const [halted] = await bus.ordering.halted();
    expect(halted).toMatchObject({
      key: 'item:3',
      lane: 'async',
      handler: 'item.async',
      reason: 'non-retryable',
    });
    // Only the async handler's lane halted: the sync handlers went on.
    await waitFor('sync lane done', () => seen.ns('item.sync', 'item:3').length === 4);
    expect(seen.ns('item.async', 'item:3')).toEqual([1]);

    expect(await bus.ordering.skip('item:3')).toBe(1);
    await bus.whenIdle(10_000);
    expect(seen.ns('item.async', 'item:3')).toEqual([1, 3, 4]);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason])).toEqual([['item.async', 'non-retryable']]);
    expect(await bus.ordering.pending()).toBe(0);
  });

  it('orders a single event by the orderKey option, and leaves unordered events as they were', async () => {
    const seen = new Seen();
    const { bus } = await start({
      NOTE: [[defineHandler<NoteAdded>('note.add', (e) => seen.record('note.add', e)), true]],
    });
    for (let n = 1; n <= 10; n++)
      await bus.publish(NoteAdded.create({ item: 1, n }), { orderKey: 'notes:1' });
    await bus.publish(NoteAdded.create({ item: 1, n: 99 }));
    await bus.whenIdle(10_000);
    expect(seen.ns('note.add', 'notes:1')).toEqual(range(1, 10));
    expect(seen.of('note.add', '')).toEqual([{ handler: 'note.add', key: '', n: 99 }]);
  });

  it('holds a key where it is while its handler is paused, and goes on in order after resume', async () => {
    const seen = new Seen();
    const { bus } = await start(
      { ITEM: [[defineHandler<ItemChanged>('item.paused', (e) => seen.record('item.paused', e)), true]] },
      { rulesRefreshMs: 30 },
    );
    await bus.publish(ItemChanged.create({ item: 9, n: 1 }));
    await waitFor('first event handled', () => seen.runs.length === 1);
    await bus.rules.pause({ handler: 'item.paused' });
    await bus.publish(range(2, 5).map((n) => ItemChanged.create({ item: 9, n })));
    // Give the worker time to pick the rule up and look at the key more than once.
    await waitFor('the key to wait behind the pause', async () => (await bus.ordering.pending()) === 4);
    await pause(150);
    expect(seen.ns('item.paused', 'item:9')).toEqual([1]);
    await bus.rules.resume({ handler: 'item.paused' });
    await bus.whenIdle(10_000);
    expect(seen.ns('item.paused', 'item:9')).toEqual(range(1, 5));
  });

  it('hands its keys to another worker on shutdown: the current event finishes, the rest follow in order, none twice', async () => {
    const seen = new Seen();
    const byFirst: number[] = [];
    let firstOpen = true;
    let thirdStarted = false;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handler = defineHandler<ItemChanged>('item.handover', async (e) => {
      if (e.n === 3) {
        thirdStarted = true;
        await gate;
      }
      if (e.n > 3) await pause(20);
      if (firstOpen) byFirst.push(e.n);
      seen.record('item.handover', e);
    });
    const cfg = config();
    const first = await bed.buses.start({
      events: EVENTS,
      handlers: { ITEM: [[handler, true]] },
      config: cfg,
      transport: testTransport(transport),
    });
    await first.bus.publish(range(1, 12).map((n) => ItemChanged.create({ item: 4, n })));
    // Event 3 has started (not only 1 and 2 done): closing now must let it finish.
    await waitFor('the first worker to start event 3', () => thirdStarted);
    const closing = first.worker.close();
    release();
    await closing;
    firstOpen = false;
    // The first worker finished what it had started and stopped well before the end.
    expect(byFirst.slice(0, 3)).toEqual([1, 2, 3]);
    expect(byFirst.length).toBeLessThan(12);
    const second = {
      events: EVENTS,
      handlers: { ITEM: [[handler, true] as const] },
      config: cfg,
      transport: testTransport(transport),
    };
    // One worker per memory bus: on memory the new worker shares the first's transport.
    await bed.buses.start(second, {}, transport === 'memory' ? first.bus.transport : undefined);
    await waitFor('the rest handled', () => seen.runs.length === 12);
    expect(seen.ns('item.handover', 'item:4')).toEqual(range(1, 12));
    const runs = seen.of('item.handover', 'item:4');
    for (let i = 1; i < runs.length; i++) expect(runs[i]?.prev).toBe(runs[i - 1]?.seq);
  });

  it('gives a waiting key its turn while a busy key holds the only slot', async () => {
    const order: string[] = [];
    const { bus } = await start(
      {
        ITEM: [[defineHandler<ItemChanged>('item.turns', (e) => void order.push(`${e.item}:${e.n}`)), true]],
      },
      { orderedConcurrency: 1 },
    );
    await bus.publish(range(1, 300).map((n) => ItemChanged.create({ item: 1, n })));
    await bus.publish(ItemChanged.create({ item: 2, n: 1 }));
    await bus.whenIdle(15_000);
    const busy = order.filter((o) => o.startsWith('1:'));
    expect(busy).toEqual(range(1, 300).map((n) => `1:${n}`));
    // Key 2 ran after at most two turns of key 1 (100 events each), not after all 300.
    expect(order.indexOf('2:1')).toBeLessThanOrEqual(200);
  });

  it('refuses an invalid order key and a delayed ordered event, with errors that say what to do', async () => {
    const bus = bed.buses.create({ events: EVENTS, config: config(), transport: testTransport(transport) });
    await expect(bus.publish(NoteAdded.create({ item: 1, n: 1 }), { orderKey: '' })).rejects.toThrow(
      InvalidOrderKeyError,
    );
    await expect(bus.publish(ItemChanged.create({ item: 1, n: 1 }), { delay: 1_000 })).rejects.toThrow(
      /is ordered \(key "item:1"\) and cannot be delayed/,
    );
    expect(await bus.ordering.pending()).toBe(0);
  });
});
