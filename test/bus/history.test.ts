/**
 * The bus's history per minute: events published and handled by a worker
 * show in the current minute of `bus.history()`, a failed-then-retried run
 * as failed and retried, a given-up one as a dead letter; the backlog is
 * sampled where a worker runs; a bus that only publishes counts what it
 * published; `history.enabled: false` counts nothing; every minute of the
 * range is there, zero-filled. On the embedded SQLite and on Redis (the port
 * itself: test/conformance/history-store.conformance.test.ts).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type CommitbusOptions,
  defineHandler,
  type EventBus,
  type EventHandlersConfig,
  type TransportAdapter,
} from '../../src/index.js';
import { minuteOf, NO_SAMPLE } from '../../src/metrics/history-store.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { recordCreated, recordPublished, TEST_EVENTS } from '../helpers/events.js';
import { deleteKeys, openRedis, testPrefix } from '../helpers/redis.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const PREFIX = testPrefix('history');
const TEN_MINUTES = 600_000;

const SETUPS: readonly { name: string; adapter: () => TransportAdapter }[] = [
  { name: 'sqlite in memory', adapter: () => sqliteTransport({ pollMs: 20 }) },
  { name: 'redis', adapter: () => testRedis() },
];

const buses = new Buses();
afterEach(() => buses.closeAll());
afterAll(async () => {
  const redis = openRedis();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

let n = 0;
function config(overrides: CommitbusOptions = {}): CommitbusOptions {
  return fastConfig({ prefix: PREFIX, name: `history${++n}`, history: { flushEveryMs: 30 }, ...overrides });
}

/** The counters summed over the points read. */
async function totals(bus: EventBus) {
  const points = await bus.history({ sinceMs: TEN_MINUTES });
  const sum = (pick: (p: (typeof points)[number]) => number) => points.reduce((s, p) => s + pick(p), 0);
  return {
    published: sum((p) => p.published),
    handled: sum((p) => p.handled),
    failed: sum((p) => p.failed),
    retried: sum((p) => p.retried),
    deadLettered: sum((p) => p.deadLettered),
  };
}

describe.each(SETUPS)('bus.history() on $name', (setup) => {
  it('shows events published and handled by a worker in the current minute, the backlog sampled', async () => {
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [defineHandler('ok', async () => {})] };
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      config: config(),
      transport: setup.adapter(),
    });
    await bus.publish([recordCreated('a'), recordCreated('b'), recordCreated('c')]);
    await waitFor('3 published and 3 handled in the history', async () => {
      const t = await totals(bus);
      return t.published === 3 && t.handled === 3;
    });
    const points = await bus.history({ sinceMs: TEN_MINUTES });
    const last = points.at(-1);
    expect(last?.minute.getTime()).toBe(
      minuteOf(Date.now()) - (minuteOf(Date.now()) - (last?.minute.getTime() ?? 0)),
    );
    expect(points.length).toBeGreaterThanOrEqual(11);
    expect(points.length).toBeLessThanOrEqual(12);
    const withCounts = points.filter((p) => p.published + p.handled > 0);
    // Recorded within the last minute or two, on this machine's clock here.
    for (const p of withCounts) expect(Date.now() - p.minute.getTime()).toBeLessThan(3 * 60_000);
    await waitFor('a backlog sample', async () =>
      (await bus.history({ sinceMs: TEN_MINUTES })).some(
        (p) => p.backlog !== null && p.backlogAgeMs !== null,
      ),
    );
    expect(await totals(bus)).toMatchObject({ failed: 0, retried: 0, deadLettered: 0 });
  });

  it('counts a failed-then-retried run as failed and retried, a given-up one as a dead letter', async () => {
    let calls = 0;
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        defineHandler('flaky', async () => {
          calls++;
          if (calls === 1) throw new Error('first attempt fails');
        }),
      ],
      'RECORD.PUBLISH': [
        {
          handler: defineHandler('broken', async () => {
            throw new Error('always fails');
          }),
          attempts: 1,
        },
      ],
    };
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      config: config(),
      transport: setup.adapter(),
    });
    await bus.publish(recordCreated('x'));
    await waitFor('failed 1, retried 1, handled 1', async () => {
      const t = await totals(bus);
      return t.failed === 1 && t.retried === 1 && t.handled === 1;
    });
    await bus.publish(recordPublished('y'));
    await waitFor('a dead letter in the history', async () => (await totals(bus)).deadLettered === 1, {
      describe: () => totals(bus),
    });
    expect(await totals(bus)).toMatchObject({ failed: 2, retried: 1, handled: 1, published: 2 });
  });

  it('has every minute of the range, zero-filled, 24 hours by default', async () => {
    const bus = buses.create({ events: TEST_EVENTS, config: config(), transport: setup.adapter() });
    const day = await bus.history();
    expect(day).toHaveLength(1_440);
    const starts = day.map((p) => p.minute.getTime());
    for (let i = 1; i < starts.length; i++) expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBe(60_000);
    expect(day[0]).toEqual({ minute: day[0]?.minute, ...NO_SAMPLE });
    expect(await bus.history({ sinceMs: 0 })).toHaveLength(1);
    await expect(bus.history({ sinceMs: -1 })).rejects.toMatchObject({ code: 'COMMITBUS_HISTORY_QUERY' });
  });
});

describe('bus.history() across processes (redis)', () => {
  it('counts what a bus without a worker published', async () => {
    const options = config();
    const publisher = buses.create({ events: TEST_EVENTS, config: options, transport: testRedis() });
    await publisher.publish([recordCreated('p1'), recordCreated('p2')]);
    await waitFor('2 published', async () => (await totals(publisher)).published === 2);
    const points = await publisher.history({ sinceMs: TEN_MINUTES });
    // No worker here: no backlog sampled.
    expect(points.every((p) => p.backlog === null)).toBe(true);
  });

  it('counts nothing with history.enabled off; its last counts are flushed on close otherwise', async () => {
    const off = config({ history: { enabled: false, flushEveryMs: 30 } });
    const quiet = buses.create({ events: TEST_EVENTS, config: off, transport: testRedis() });
    await quiet.publish(recordCreated('q'));
    await quiet.close();
    const on = config({ history: { flushEveryMs: 3_600_000 } });
    const flushedOnClose = buses.create({ events: TEST_EVENTS, config: on, transport: testRedis() });
    await flushedOnClose.publish(recordCreated('r'));
    await flushedOnClose.close();
    const reader = buses.create({
      events: TEST_EVENTS,
      config: { ...off, name: off.name },
      transport: testRedis(),
    });
    expect(await totals(reader)).toMatchObject({ published: 0 });
    const readerOn = buses.create({
      events: TEST_EVENTS,
      config: { ...on, name: on.name },
      transport: testRedis(),
    });
    expect(await totals(readerOn)).toMatchObject({ published: 1 });
  });
});
