/**
 * Parked work released while no worker runs (the `SchedulingRuleStore`
 * contract: release means enqueued into the handler job queue): it waits
 * there, and a worker started later runs each item once, in the order it was
 * parked, on both transports. (The store's side alone is
 * test/conformance/scheduling-rule-store.conformance.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { EventHandlersConfig } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, type TransportName, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';
import { asyncRunParked } from './rules-bed.js';

const { prefix: PREFIX, buses } = redisTestBed('released');

/**
 * A bus whose handler `name` runs one job at a time, recorded by `rec`. Its
 * rules reload only when changed in this process or when a worker starts:
 * no periodic reload comes within a test to release what a start did not.
 */
function options(transport: TransportName, name: string, rec: Recorder) {
  const handlers: EventHandlersConfig = { 'RECORD.CREATE': [rec.handler(name)] };
  return {
    events: TEST_EVENTS,
    handlers,
    config: fastConfig({ prefix: PREFIX, name, asyncConcurrency: 1, rulesRefreshMs: 60_000 }),
    transport: testTransport(transport),
  };
}

describe.each(TRANSPORT_NAMES)('parked work released with no worker on %s', (transport) => {
  it('released through the store, it waits in the job queue; a worker started later runs each item once, in order', async () => {
    const rec = new Recorder();
    const bus = buses.create(options(transport, 'later.mail', rec));
    const events = [recordCreated('l0'), recordCreated('l1'), recordCreated('l2')];
    for (const [i, event] of events.entries()) {
      await bus.transport.rules.park(
        asyncRunParked(bus, event, 'later.mail', `${event.id}.later.mail.parked-${i}`),
      );
    }

    expect(await bus.transport.rules.unpark('later.mail', () => true)).toBe(3);
    expect(await bus.rules.parkedCount()).toBe(0);
    expect((await bus.status()).jobs.waiting).toBe(3);
    expect(rec.runs).toEqual([]);

    await bus.startWorker({ handleSignals: false });
    await waitFor('the released work to run', () => rec.count('later.mail') === 3);
    await bus.whenIdle(10_000);
    expect(rec.runs.map((r) => r.eventId)).toEqual(events.map((e) => e.id));
    expect((await bus.status()).jobs.waiting).toBe(0);
  });

  it('resumed while no worker ran, parked work is released by the next worker as it starts and runs once each', async () => {
    const rec = new Recorder();
    const { bus, worker } = await buses.start(options(transport, 'resumed.mail', rec));
    await bus.rules.pause({ handler: 'resumed.mail' });
    const events = [recordCreated('r0'), recordCreated('r1'), recordCreated('r2')];
    await bus.publish(events);
    await waitFor('the events to be parked', async () => (await bus.rules.parkedCount()) === 3);
    await bus.whenIdle(10_000);
    await worker.close();

    // Workers release parked work: with none running, a resume leaves it parked.
    expect(await bus.rules.resume({ handler: 'resumed.mail' })).toBe(true);
    expect(await bus.rules.parkedCount()).toBe(3);

    // The worker's rules load, and what they let go is released, before it takes work.
    await bus.startWorker({ handleSignals: false });
    expect(await bus.rules.parkedCount()).toBe(0);
    await waitFor('the released work to run', () => rec.count('resumed.mail') === 3);
    await bus.whenIdle(10_000);
    expect(
      rec.notRunOnce(
        'resumed.mail',
        events.map((e) => e.id),
      ),
    ).toEqual([]);
    expect(rec.runs.map((r) => r.eventId)).toEqual(events.map((e) => e.id));
  });
});
