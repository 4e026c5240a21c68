/**
 * Attack: handlers that throw `Error`s commitbus cannot read. `asError` wraps
 * only what is not an `Error`; an `Error` goes on as it is, and later steps
 * read its `message`, `name` and `code` as if they were well-behaved.
 */
import { describe, expect, it } from 'vitest';
import type { EventHandlersConfig } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { failedHandlerJobs } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('attack-thrown');

/** What an HTTP client error built from a NestJS 400 body looks like: `message` is a list. */
function validationError(): Error {
  return Object.assign(new Error('bad request'), {
    statusCode: 400,
    message: ['title must be a string', 'recid should not be empty'],
  });
}

/** An error class that reads its code from a response it does not have. */
class ResponseError extends Error {
  constructor(private readonly response?: { headers: Record<string, string> }) {
    super('upstream failed');
  }

  get code(): string {
    return (this.response as { headers: Record<string, string> }).headers['x-error-code'] as string;
  }
}

describe('an Error commitbus cannot read', () => {
  it('an async handler throwing an Error whose message is an array is given up after its attempts as exhausted', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          handler: rec.handler('thrown.array-message', () => {
            throw validationError();
          }),
          attempts: 2,
          backoff: { type: 'fixed', delayMs: 1 },
        },
      ],
    };
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      config: fastConfig({
        prefix: PREFIX,
        name: 'array-message',
        lockDurationMs: 1_000,
      }),
      transport: testRedis(),
    });
    const event = recordCreated('array');
    await bus.publish(event);
    // Today BullMQ cannot fail the job (its failed reason is not a string): the job
    // stalls, runs again once per lock expiry, and after maxDeliveries (5) is
    // kept as `crashed`, although the handler threw each time and never crashed.
    await bus.whenIdle(20_000);
    expect(rec.count('thrown.array-message', event.id)).toBe(2);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason, typeof l.error])).toEqual([
      ['thrown.array-message', 'exhausted', 'string'],
    ]);
  });

  it.each([
    ['sync', true],
    ['async', false],
  ])(
    'a %s handler throwing an Error whose code getter throws is retried and dead-lettered; the event’s other handlers run',
    async (_, sync) => {
      const rec = new Recorder();
      const handlers: EventHandlersConfig = {
        'RECORD.CREATE': [
          {
            handler: rec.handler('thrown.bad-code', () => {
              throw new ResponseError();
            }),
            sync,
            attempts: 2,
            backoff: { type: 'fixed', delayMs: 1 },
          },
          [rec.handler('thrown.next-sync'), true],
          rec.handler('thrown.sibling-async'),
        ],
      };
      const { bus } = await buses.start({
        events: TEST_EVENTS,
        handlers,
        config: fastConfig({
          prefix: PREFIX,
          name: `bad-code-${sync ? 'sync' : 'async'}`,
        }),
        transport: testRedis(),
      });
      const event = recordCreated('bad-code');
      await bus.publish(event);
      await bus.whenIdle(15_000);
      // Today, sync: one run, then the whole event is a dead letter of kind `event`
      // (`undeliverable`, "Cannot read properties of undefined") and neither its
      // next sync handler nor its async handler ran. Async: two runs, no dead
      // letter, the job left in BullMQ's failed set.
      expect(rec.count('thrown.bad-code', event.id)).toBe(2);
      expect(rec.count('thrown.next-sync', event.id)).toBe(1);
      expect(rec.count('thrown.sibling-async', event.id)).toBe(1);
      const letters = await bus.deadLetters.list();
      expect(letters.map((l) => [l.kind, l.handler, l.reason])).toEqual([
        ['handler', 'thrown.bad-code', 'exhausted'],
      ]);
      expect(await failedHandlerJobs(redis, bus.config)).toBe(0);
    },
  );
});
