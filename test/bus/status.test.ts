/**
 * `bus.status()` on both transports: a bus given known contents (events
 * published with no worker running, a delayed event, a paused handler with
 * parked work, dead letters, a re-driven letter's job, a halted order key, an
 * outbox row) reports exactly them.
 */
import type { DataSource } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { defineHandler, Event, type EventBus, type EventHandlersConfig, EventType } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, recordPublished, TEST_EVENTS } from '../helpers/events.js';
import { DEAD_PUBLISHER, leaveOutboxRow, openSqlite } from '../helpers/outbox.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

@EventType('STOCK.MOVE', { orderBy: (e: StockMoved) => `sku:${e.sku}` })
class StockMoved extends Event {
  sku!: string;
}

const { prefix, buses } = redisTestBed('i12cli-status');
let dataSource: DataSource | undefined;
afterEach(async () => {
  await dataSource?.destroy();
  dataSource = undefined;
});

const handlers: EventHandlersConfig = {
  'RECORD.CREATE': [
    { handler: defineHandler('indexRecord', () => {}), sync: true },
    defineHandler('mailOwner', () => {}),
  ],
  'RECORD.PUBLISH': [
    {
      handler: defineHandler('announce', () => {
        throw new Error('announce is down');
      }),
      attempts: 1,
    },
  ],
  'STOCK.MOVE': [
    {
      handler: defineHandler('moveStock', () => {
        throw new Error('no such sku');
      }),
      sync: true,
      attempts: 1,
    },
  ],
};

async function seed(bus: EventBus): Promise<void> {
  await bus.rules.pause({ handler: 'mailOwner' });
  const worker = await bus.startWorker({ handleSignals: false });
  await bus.publish([recordCreated('1'), recordCreated('2'), recordPublished('p1'), recordPublished('p2')]);
  await bus.publish(StockMoved.create({ sku: 'A' }));
  await waitFor('two parked, two letters, one halted key', async () => {
    const [parked, letters, halted] = await Promise.all([
      bus.rules.parkedCount('mailOwner'),
      bus.deadLetters.list(),
      bus.ordering.halted(),
    ]);
    return parked === 2 && letters.length === 2 && halted.length === 1;
  });
  await bus.whenIdle(10_000);
  await worker.close();
  // With no worker running: three events wait, one is delayed, one letter's job waits.
  await bus.publish([recordCreated('3'), recordCreated('4'), recordCreated('5')]);
  await bus.publish(recordCreated('later'), { delay: 3_600_000 });
  const [letter] = await bus.deadLetters.list({ limit: 1 });
  await bus.deadLetters.redrive(letter?.id ?? '');
}

describe.each(TRANSPORT_NAMES)('bus.status() on %s', (transport) => {
  it('reports exactly what the bus holds', async () => {
    dataSource = await openSqlite([]);
    const name = `status-${transport}`;
    const bus = buses.create({
      events: [...TEST_EVENTS, StockMoved],
      handlers,
      dataSource,
      config: fastConfig({ prefix, name, ...DEAD_PUBLISHER }),
      transport: testTransport(transport),
    });
    await seed(bus);
    // The ordered event took its position through the outbox: its row goes once published.
    await waitFor('the outbox to be empty', async () => (await bus.outbox?.pending()) === 0);
    await leaveOutboxRow(dataSource);

    const status = await bus.status();

    expect(JSON.parse(JSON.stringify(status))).toEqual(status);
    // The transport's own name: the embedded adapter is the SQL transport on SQLite.
    expect(status.bus).toEqual({ name, prefix, transport: transport === 'sqlite' ? 'sql-sqlite' : 'redis' });
    expect(status.backlog).toMatchObject({ events: 3, ordered: 1, delayed: 1 });
    expect(status.backlog.oldestAgeMs).toBeGreaterThanOrEqual(0);
    expect(status.backlog.oldestAgeMs).toBeLessThan(10_000);
    expect(status.jobs).toEqual({ waiting: 1, running: 0, retrying: 0 });
    expect(status.parked).toBe(2);
    expect(status.deadLetters).toEqual({
      count: 1,
      byKind: { handler: 1 },
      byHandler: { announce: 1 },
      dropped: 0,
    });
    expect(status.halted.count).toBe(1);
    expect(status.halted.first).toEqual([
      expect.objectContaining({
        key: 'sku:A',
        lane: 'sync',
        handler: 'moveStock',
        reason: 'exhausted',
        waiting: 1,
      }),
    ]);
    expect(status.rules).toEqual([
      { kind: 'pause', handler: 'mailOwner', handlingKey: null, since: expect.any(String) },
    ]);
    expect(status.handlers).toEqual({
      announce: { waiting: 1, running: 0, retrying: 0, parked: 0, deadLetters: 1 },
      indexRecord: { waiting: 0, running: 0, retrying: 0, parked: 0, deadLetters: 0 },
      mailOwner: { waiting: 0, running: 0, retrying: 0, parked: 2, deadLetters: 0 },
      moveStock: { waiting: 0, running: 0, retrying: 0, parked: 0, deadLetters: 0 },
    });
    expect(status.outbox?.pending).toBe(1);
    expect(status.outbox?.oldestAgeMs).toBeGreaterThanOrEqual(60_000);
  });

  it('counts a handler job running and one waiting to retry after a failed attempt', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers: {
        'RECORD.CREATE': [
          defineHandler('slowMail', async () => {
            started = true;
            await held;
          }),
        ],
        'RECORD.PUBLISH': [
          {
            handler: defineHandler('flakyAnnounce', () => {
              throw new Error('not yet');
            }),
            attempts: 3,
            backoff: { type: 'fixed', delayMs: 60_000 },
          },
        ],
      },
      config: fastConfig({ prefix, name: `jobs-${transport}`, shutdownTimeoutMs: 1_000 }),
      transport: testTransport(transport),
    });
    await bus.startWorker({ handleSignals: false });
    try {
      await bus.publish([recordCreated('slow'), recordPublished('flaky')]);
      await waitFor('one job running, one retrying', async () => {
        const { jobs } = await bus.status();
        return started && jobs.running === 1 && jobs.retrying === 1;
      });
      const status = await bus.status();
      expect(status.jobs).toEqual({ waiting: 0, running: 1, retrying: 1 });
      expect(status.handlers).toEqual({
        flakyAnnounce: { waiting: 0, running: 0, retrying: 1, parked: 0, deadLetters: 0 },
        slowMail: { waiting: 0, running: 1, retrying: 0, parked: 0, deadLetters: 0 },
      });
    } finally {
      release();
    }
  });

  it('reports an empty bus as zeros, with no outbox without a DataSource', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      config: fastConfig({ prefix, name: `empty-${transport}` }),
      transport: testTransport(transport),
    });
    const status = await bus.status();
    expect(status).toMatchObject({
      backlog: { events: 0, oldestAgeMs: null, ordered: 0, delayed: 0 },
      jobs: { waiting: 0, running: 0, retrying: 0 },
      parked: 0,
      deadLetters: { count: 0, byKind: {}, byHandler: {}, dropped: 0 },
      halted: { count: 0, first: [] },
      rules: [],
      handlers: {},
      outbox: null,
    });
  });
});
