/**
 * The `ScheduleTickStore` port's contract (src/scheduling/schedule-tick-store.ts),
 * run against every adapter in ./adapters.ts through the store its transport
 * opens: of claims racing for one tick exactly one wins; a later tick wins
 * and an earlier or equal one is refused; the last tick is kept to the
 * millisecond, per schedule name. (What a bus does with its schedules is
 * test/scheduling/schedules.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { adaptersFor } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-ticks');

const T = Date.UTC(2026, 0, 1, 10, 0, 0, 123);

describe.each(adaptersFor('ticks'))('ScheduleTickStore on $name', (adapter) => {
  it('lets exactly one of the claims racing for a tick win it', async () => {
    const ticks = bed.open(adapter).transport.ticks;
    const won = await Promise.all(Array.from({ length: 8 }, () => ticks.claim('hourly', new Date(T))));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await ticks.lastTick('hourly')).toEqual(new Date(T));
  });

  it('lets a later tick win and refuses an earlier or the same one', async () => {
    const ticks = bed.open(adapter).transport.ticks;
    expect(await ticks.claim('hourly', new Date(T))).toBe(true);
    expect(await ticks.claim('hourly', new Date(T + 3_600_000))).toBe(true);
    expect(await ticks.claim('hourly', new Date(T))).toBe(false);
    expect(await ticks.claim('hourly', new Date(T + 3_600_000))).toBe(false);
    expect(await ticks.claim('hourly', new Date(T + 3_599_999))).toBe(false);
    expect(await ticks.lastTick('hourly')).toEqual(new Date(T + 3_600_000));
  });

  it('ends on the latest of ticks claimed at once, which always wins', async () => {
    const ticks = bed.open(adapter).transport.ticks;
    const times = [T + 2_000, T, T + 1_000, T + 3_000, T + 1_000];
    const won = await Promise.all(times.map((at) => ticks.claim('every-second', new Date(at))));
    expect(won[3]).toBe(true);
    expect(await ticks.lastTick('every-second')).toEqual(new Date(T + 3_000));
  });

  it('keeps each schedule apart, names compared as they are, and knows none never claimed', async () => {
    const ticks = bed.open(adapter).transport.ticks;
    expect(await ticks.lastTick('report')).toBeUndefined();
    expect(await ticks.claim('report', new Date(T))).toBe(true);
    expect(await ticks.claim('Report', new Date(T))).toBe(true);
    expect(await ticks.claim('report:daily é', new Date(T - 1))).toBe(true);
    expect(await ticks.lastTick('report')).toEqual(new Date(T));
    expect(await ticks.lastTick('report:daily é')).toEqual(new Date(T - 1));
    expect(await ticks.lastTick('reports')).toBeUndefined();
  });

  it("keeps a bus's ticks apart from another bus's", async () => {
    const first = bed.open(adapter).transport.ticks;
    const second = bed.open(adapter).transport.ticks;
    expect(await first.claim('hourly', new Date(T))).toBe(true);
    expect(await second.lastTick('hourly')).toBeUndefined();
    expect(await second.claim('hourly', new Date(T))).toBe(true);
  });
});
