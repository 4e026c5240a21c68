/**
 * A stored dead letter that cannot be read (on bullmq): logged and left out
 * by list(), named by redrive('all') after the others re-run, purged by time
 * or by id.
 */
import { describe, expect, it } from 'vitest';
import { DeadLetterRedriveError, EventBus, silentLogger } from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { deadLetterKeys } from '../helpers/redis.js';
import { testRedis } from '../helpers/transports.js';
import { deadLetterBed } from './dead-letters-bed.js';

const { prefix: PREFIX, redis, open } = deadLetterBed('dead-letters-unreadable');

describe('bullmq transport: a dead letter that cannot be read', () => {
  it("is logged by list(), named by redrive('all') after the others re-run, and purged by time or id", async () => {
    const rec = new Recorder();
    const errors: { fields: object; message: string }[] = [];
    const logger = {
      ...silentLogger,
      error: (fields: object, message: string) => errors.push({ fields, message }),
    };
    let down = true;
    const b = new EventBus({
      events: TEST_EVENTS,
      logger,
      config: fastConfig({ prefix: PREFIX, name: 'corrupt-letter' }),
      transport: testRedis(),
      handlers: {
        'RECORD.CREATE': [
          {
            handler: rec.handler('corrupt.flaky', () => {
              if (down) throw new Error('down');
            }),
            attempts: 1,
          },
        ],
      },
    });
    open.push(b);
    await b.startWorker({ handleSignals: false });
    const event = recordCreated('c1');
    await b.publish(event);
    await b.whenIdle(10_000);
    const names = queueNamesOf(b.config);
    await redis.hset(names.deadLetters, 'by-hand', '{"id":"by-hand","kind":"hand');
    await redis.zadd(names.deadLettersByTime, Date.now(), 'by-hand');
    errors.length = 0;

    expect((await b.deadLetters.list()).map((l) => l.id)).toEqual([`${event.id}.corrupt.flaky`]);
    expect(errors.map((e) => [e.message, (e.fields as { deadLetter?: string }).deadLetter])).toEqual([
      ['a stored dead letter cannot be read; it is left out: purge it by id', 'by-hand'],
    ]);
    await expect(b.deadLetters.get('by-hand')).rejects.toThrow('bus.deadLetters.purge("by-hand")');

    down = false;
    const redriven = await b.deadLetters.redrive('all').catch((error: unknown) => error);
    expect(redriven).toBeInstanceOf(DeadLetterRedriveError);
    expect((redriven as DeadLetterRedriveError).redriven).toBe(1);
    expect((redriven as DeadLetterRedriveError).failed.map((f) => f.id)).toEqual(['by-hand']);
    await b.whenIdle(10_000);
    expect(rec.count('corrupt.flaky', event.id)).toBe(2);

    await redis.hset(names.deadLetters, 'later', '{"id":"later"');
    await redis.zadd(names.deadLettersByTime, Date.now() + 60_000, 'later');
    // A purge by time alone takes the unreadable letters of its window, and only those.
    expect(await b.deadLetters.purge({ until: new Date() })).toBe(1);
    await expect(b.deadLetters.get('by-hand')).resolves.toBeUndefined();
    expect(await b.deadLetters.purge('later')).toBe(1);
    expect(await b.deadLetters.list()).toEqual([]);
    expect(await deadLetterKeys(redis, b.config)).toBe(0);
  });
});
