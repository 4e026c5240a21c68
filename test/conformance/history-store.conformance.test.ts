/**
 * The `HistoryStore` port's contract (src/metrics/history-store.ts), run
 * against every adapter in ./adapters.ts through the store its transport
 * opens: counters add up within a minute and gauges keep their largest
 * sample, on the store's clock; a read covers the minutes asked for, oldest
 * first; buses are apart. Two records may straddle a minute's end, so the
 * checks sum the counters and take the largest gauge over the minutes read.
 * (What a bus records, and `bus.history()`, is test/bus/history.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { HistoryPoint, HistorySample } from '../../src/metrics/history-store.js';
import { minuteOf, NO_SAMPLE } from '../../src/metrics/history-store.js';
import { adaptersFor } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-history');

const HOUR = 3_600_000;

function sampleOf(fields: Partial<HistorySample> = {}): HistorySample {
  return { ...NO_SAMPLE, ...fields };
}

/** The counters summed and the gauges' largest value over `minutes` (null when none has one). */
function total(minutes: readonly HistoryPoint[]): HistorySample {
  const most = (values: (number | null)[]) => {
    const given = values.filter((v): v is number => v !== null);
    return given.length === 0 ? null : Math.max(...given);
  };
  return {
    published: minutes.reduce((n, m) => n + m.published, 0),
    handled: minutes.reduce((n, m) => n + m.handled, 0),
    failed: minutes.reduce((n, m) => n + m.failed, 0),
    retried: minutes.reduce((n, m) => n + m.retried, 0),
    deadLettered: minutes.reduce((n, m) => n + m.deadLettered, 0),
    backlog: most(minutes.map((m) => m.backlog)),
    backlogAgeMs: most(minutes.map((m) => m.backlogAgeMs)),
  };
}

describe.each(adaptersFor('history'))('HistoryStore on $name', (adapter) => {
  it('adds the counters of every sample into the minute and keeps the largest gauges', async () => {
    const history = bed.open(adapter).transport.history;
    await history.record(sampleOf({ published: 3, handled: 2, backlog: 7, backlogAgeMs: 1_500 }));
    await history.record(sampleOf({ handled: 1, failed: 4, retried: 2, deadLettered: 1, backlog: 4 }));
    await history.record(sampleOf({ published: 1, backlogAgeMs: 9_000 }));
    const { minutes } = await history.read(HOUR);
    expect(total(minutes)).toEqual({
      published: 4,
      handled: 3,
      failed: 4,
      retried: 2,
      deadLettered: 1,
      backlog: 7,
      backlogAgeMs: 9_000,
    });
  });

  it('keeps the gauges null while no sample gave one, and a null sample changes nothing', async () => {
    const history = bed.open(adapter).transport.history;
    await history.record(sampleOf({ published: 1 }));
    const first = await history.read(HOUR);
    expect(first.minutes.every((m) => m.backlog === null && m.backlogAgeMs === null)).toBe(true);
    await history.record(sampleOf({ backlog: 0, backlogAgeMs: 0 }));
    await history.record(sampleOf({ published: 1 }));
    expect(total((await history.read(HOUR)).minutes)).toMatchObject({
      published: 2,
      backlog: 0,
      backlogAgeMs: 0,
    });
  });

  it("stamps whole minutes on the store's clock and reads them oldest first with that clock", async () => {
    const history = bed.open(adapter).transport.history;
    const before = Date.now();
    await history.record(sampleOf({ handled: 1 }));
    await history.record(sampleOf({ handled: 1 }));
    const { now, minutes } = await history.read(HOUR);
    // The store's clock is this machine's here.
    expect(Math.abs(now.getTime() - before)).toBeLessThan(5_000);
    expect(minutes.length).toBeGreaterThanOrEqual(1);
    for (const m of minutes) expect(m.minute.getTime() % 60_000).toBe(0);
    const starts = minutes.map((m) => m.minute.getTime());
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(starts.at(-1)).toBeLessThanOrEqual(minuteOf(now.getTime()));
    expect(starts[0]).toBeGreaterThanOrEqual(minuteOf(before) - 60_000);
  });

  it('reads from the minute of now - sinceMs on: 0 reads the current minute only', async () => {
    const history = bed.open(adapter).transport.history;
    await history.record(sampleOf({ published: 5 }));
    const reading = await history.read(0);
    for (const m of reading.minutes) expect(m.minute.getTime()).toBe(minuteOf(reading.now.getTime()));
    expect(reading.minutes.length).toBeLessThanOrEqual(1);
  });

  it('reads nothing from a bus that recorded nothing', async () => {
    const history = bed.open(adapter).transport.history;
    const reading = await history.read(24 * HOUR);
    expect(reading.minutes).toEqual([]);
    expect(reading.now).toBeInstanceOf(Date);
  });

  it("keeps a bus's minutes apart from another bus's", async () => {
    const first = bed.open(adapter).transport.history;
    const second = bed.open(adapter).transport.history;
    await first.record(sampleOf({ published: 2 }));
    expect((await second.read(HOUR)).minutes).toEqual([]);
    await second.record(sampleOf({ published: 1 }));
    expect(total((await first.read(HOUR)).minutes).published).toBe(2);
  });
});
