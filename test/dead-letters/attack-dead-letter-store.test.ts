/**
 * Attack: one dead letter in Redis that is not a letter commitbus wrote (cut
 * short by a hand edit, or written by another tool under the bus's keys).
 * The operator's tools must still see and clear the others.
 */
import { describe, expect, it } from 'vitest';
import { type EventHandlersConfig, NonRetryableError } from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { deadLetterKeys } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('attack-dlq');

describe('a corrupt entry in the dead-letter store', () => {
  it("does not keep list() or purge('all') from the other letters", async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        rec.handler('dlq.fails', () => {
          throw new NonRetryableError('given up');
        }),
      ],
    };
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      config: fastConfig({ prefix: PREFIX, name: 'corrupt' }),
      transport: testRedis(),
    });
    const event = recordCreated('kept');
    await bus.publish(event);
    await bus.whenIdle(10_000);
    const realId = `${event.id}.dlq.fails`;
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual([realId]);

    const names = queueNamesOf(bus.config);
    await redis.hset(names.deadLetters, 'corrupt', '{"id":"corrupt","kind":"hand');
    await redis.zadd(names.deadLettersByTime, Date.now(), 'corrupt');

    // Today each of these throws a bare SyntaxError ("Expected ',' or '}' ...
    // in JSON"), naming neither the store nor the letter.
    const listed = await bus.deadLetters.list().catch((error: unknown) => error);
    expect(listed).not.toBeInstanceOf(Error);
    expect((listed as { id: string }[]).map((l) => l.id)).toContain(realId);
    expect(await bus.deadLetters.purge('all').catch((error: unknown) => error)).toBeGreaterThanOrEqual(1);
    expect(await bus.deadLetters.get(realId)).toBeUndefined();
    expect(await deadLetterKeys(redis, bus.config)).toBeLessThanOrEqual(1);
  });
});
