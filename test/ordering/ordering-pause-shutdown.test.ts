/**
 * Ordered keys when their worker stops handling them, on both transports: a
 * paused handler holds its key where it is until resume; a worker shutting
 * down finishes its current events and hands its keys to another worker.
 */
import { describe, expect, it } from 'vitest';
import { defineHandler } from '../../src/index.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';
import { EVENTS, ItemChanged, onTransport, pause, range, Seen } from './ordering-bed.js';

const bed = redisTestBed('ordering-pause-shutdown');

describe.each(TRANSPORT_NAMES)('ordered events on %s', (transport) => {
  const { config, start } = onTransport(bed, transport);

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
    // SQLite in memory is one database per transport object: the second bus shares the first's to see its lanes.
    await bed.buses.start(second, {}, transport === 'sqlite' ? first.bus.transport : undefined);
    await waitFor('the rest handled', () => seen.runs.length === 12);
    expect(seen.ns('item.handover', 'item:4')).toEqual(range(1, 12));
    const runs = seen.of('item.handover', 'item:4');
    for (let i = 1; i < runs.length; i++) expect(runs[i]?.prev).toBe(runs[i - 1]?.seq);
  });
});
