/**
 * Per-key ordering through the public API, on both transports: events of one
 * order key are handled one at a time in publish order with linked seq/prev,
 * other keys in parallel, async handlers in per-key order too; an `orderKey`
 * orders a single event; a waiting key gets its turn beside a busy one; an
 * invalid key and a delayed ordered event are refused.
 */
import { describe, expect, it } from 'vitest';
import { defineHandler, InvalidOrderKeyError } from '../../src/index.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';
import { EVENTS, ItemChanged, NoteAdded, onTransport, pause, range, Seen } from './ordering-bed.js';

const bed = redisTestBed('ordering-keys');

describe.each(TRANSPORT_NAMES)('ordered events on %s', (transport) => {
  const { config, start } = onTransport(bed, transport);

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
