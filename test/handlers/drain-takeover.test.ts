/**
 * Drains taking over a dead drain's entries, two drains of one process on a
 * real Redis stream: an entry taken over runs alone in the process, so if it
 * kills the process no other entry has gained a delivery it did not cause
 * (the race behind a healthy event given up as `crashed` under load).
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/handlers/dispatcher.js';
import { type DrainDeps, runDrain } from '../../src/handlers/drain.js';
import type { EventLog } from '../../src/handlers/event-log.js';
import { defineHandler } from '../../src/index.js';
import { SoloGate } from '../../src/support/solo-gate.js';
import { queueNamesOf, RedisStreamEventLog } from '../../src/transports/redis/index.js';
import { busPipeline } from '../helpers/bus-pipeline.js';
import { fastConfig } from '../helpers/buses.js';
import { embeddedTransport } from '../helpers/embedded.js';
import { type RecordEvent, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { openRedis } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('drain-takeover');
// Where the drains' dead letters would go (none are expected).
const deadLetters = embeddedTransport().deadLetters;

/** `[recid or id, consumer, deliveries]` of each entry pending in the group, oldest first. */
async function pendingEntries(stream: string, group: string, recids: Map<string, string>) {
  const rows = (await redis.xpending(stream, group, '-', '+', 100)) as [string, string, number, number][];
  return rows.map(([id, consumer, , deliveries]) => [recids.get(id) ?? id, consumer, deliveries]);
}

/** `log` with a promise that resolves once its first `hasStale` or `claimStale` call has returned. */
function watched(log: EventLog): { log: EventLog; decided: Promise<void> } {
  let decided!: () => void;
  const done = new Promise<void>((resolve) => {
    decided = resolve;
  });
  const watchedLog = new Proxy(log, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      if (property !== 'hasStale' && property !== 'claimStale') return value.bind(target);
      return async (...args: unknown[]) => {
        const result: unknown = await value.apply(target, args);
        decided();
        return result;
      };
    },
  });
  return { log: watchedLog, decided: done };
}

describe('drains of one process taking over a dead drain’s entries', () => {
  it('claim and run a taken-over entry alone: while it runs no other entry is claimed, and each runs once', async () => {
    let entered!: () => void;
    const hangEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs: string[] = [];
    const handler = defineHandler<RecordEvent>('takeover.sync', async (event) => {
      runs.push(event.recid);
      if (event.recid === 'hang') {
        entered();
        await released;
      }
    });
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers: { RECORD: [[handler, true]] },
      config: fastConfig({ prefix: PREFIX, name: 'solo' }),
      transport: testRedis(),
    });
    const events = ['hang', 'b', 'c'].map(recordCreated);
    await bus.publish(events);
    const names = queueNamesOf(bus.config);
    const log = new RedisStreamEventLog(redis, names, 60_000);
    // A drain that read the three entries and died: they stay pending for it, delivered once.
    const read = await log.read('dead', 10, 10);
    const recids = new Map(read.map((entry, i) => [entry.entryId, events[i]?.recid ?? '?']));
    expect(read).toHaveLength(3);
    const claimStaleAfterMs = 50;
    await waitFor('the dead drain’s entries to be stale', () => log.hasStale(claimStaleAfterMs));

    const pipeline = busPipeline(bus);
    const solo = new SoloGate();
    let stopping = false;
    const [firstConnection, secondConnection] = [openRedis(), openRedis()];
    const drain = (consumer: string, eventLog: EventLog): DrainDeps => ({
      log: eventLog,
      dispatcher: new Dispatcher(pipeline),
      enqueue: async () => {},
      deadLetters,
      limits: { maxEvents: 100, ttlMs: 20_000, batchSize: 10, blockMs: 10, claimStaleAfterMs },
      consumer,
      stopping: () => stopping,
      solo,
    });
    try {
      const first = runDrain(drain('first', log.withBlockingClient(firstConnection)));
      await hangEntered;
      const second = watched(log.withBlockingClient(secondConnection));
      const secondDone = runDrain(drain('second', second.log));
      await second.decided;
      await new Promise((resolve) => setImmediate(resolve));

      // While the taken-over entry runs (were it to kill the process now), the others
      // are still the dead drain's, delivered once: the second drain waits for the gate.
      expect(await pendingEntries(names.stream, names.group, recids)).toEqual([
        ['hang', 'first', 2],
        ['b', 'dead', 1],
        ['c', 'dead', 1],
      ]);
      expect(solo.soloQueued).toBe(1);

      release();
      await waitFor(
        'every entry to be handled',
        async () => runs.length >= 3 && (await redis.xlen(names.stream)) === 0,
      );
      stopping = true;
      await Promise.all([first, secondDone]);
    } finally {
      release();
      stopping = true;
      firstConnection.disconnect();
      secondConnection.disconnect();
    }
    expect([...runs].sort()).toEqual(['b', 'c', 'hang']);
    expect(await pendingEntries(names.stream, names.group, recids)).toEqual([]);
  });
});
