/**
 * Attack: stream entries written by another publisher with XADD under the
 * bus's keys. An entry's fields are name/value pairs; the payload is the
 * value of the field named `p`.
 */
import { describe, expect, it } from 'vitest';
import type { EventHandlersConfig } from '../../../src/index.js';
import { queueNamesOf } from '../../../src/transports/redis/index.js';
import { fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';
import { isSettled } from '../../helpers/redis.js';
import { redisTestBed } from '../../helpers/redis-test-bed.js';
import { testRedis } from '../../helpers/transports.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('attack-entries');

describe('a stream entry with more fields than p', () => {
  it('is handled from its p field when another field has the value "p"', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [[rec.handler('entries.sync'), true]] };
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers,
      config: fastConfig({ prefix: PREFIX, name: 'fields' }),
      transport: testRedis(),
    });
    const event = recordCreated('tagged');
    const { payload } = bus.encode(event);
    // A publisher that tags its entries: field "source" with value "p", then the payload.
    await redis.xadd(queueNamesOf(bus.config).stream, '*', 'source', 'p', 'p', payload);
    // A publish of our own starts a drain (an XADD does not).
    const kick = recordCreated('kick');
    await bus.publish(kick);
    await bus.startWorker({ handleSignals: false });
    await bus.whenIdle(10_000);

    // Today the payload is read as "p" (the value after the first "p" found),
    // so the event becomes a `malformed` dead letter whose payload is "p": the
    // event itself is gone.
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.reason, l.payload])).toEqual([]);
    expect(rec.notRunOnce('entries.sync', [event.id, kick.id])).toEqual([]);
    expect(await isSettled(redis, bus.config)).toBe(true);
  });
});
