/**
 * A worker whose lease lapsed while it was alive (a long pause: GC, an
 * overloaded machine) and that then renewed it keeps the lanes nobody took
 * over; if it dies later, another worker must still find those lanes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { TransportKind } from '../src/index.js';
import { fastConfig } from './helpers/buses.js';
import { TEST_EVENTS } from './helpers/events.js';
import { redisTestBed } from './helpers/redis-test-bed.js';

const { prefix, buses } = redisTestBed('ordering-lease');
const LEASE_MS = 200;

describe.each<TransportKind>(['bullmq', 'memory'])(
  'ordered lanes on %s: a lease that lapsed and was renewed',
  (transport) => {
    it('the lanes its worker kept are taken over once it dies, at the event it was on', async () => {
      const bus = buses.create({
        events: TEST_EVENTS,
        config: fastConfig({ transport, prefix, name: `lease-${transport}` }),
      });
      const lanes = bus.transport.ordering;
      await lanes.maintain('w1', LEASE_MS);
      await lanes.maintain('w2', LEASE_MS);
      await bus.transport.publish(
        [1, 2, 3].map((position) => ({ id: `e${position}`, payload: `p${position}`, lane: 's|k', position })),
      );
      const [running] = await lanes.take('w1', 1);
      expect(running).toMatchObject({ lane: 's|k', position: 1, payload: 'p1' });

      await sleep(LEASE_MS + 50); // w1 pauses past its lease…
      await lanes.maintain('w2', LEASE_MS); // …w2 hands its lanes back…
      await lanes.maintain('w1', LEASE_MS); // …and w1 comes back before anyone took them.
      expect(await lanes.take('w2', 5)).toEqual([]); // the lane is still w1's

      await sleep(LEASE_MS + 50); // w1 dies
      await lanes.maintain('w2', LEASE_MS);
      const [resumed] = await lanes.take('w2', 5);
      expect(resumed).toMatchObject({ lane: 's|k', position: 1, seq: running?.seq, payload: 'p1' });
      expect(await lanes.pending()).toBe(3);
    });
  },
);
