import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  type CommitbusOptions,
  type DeadLetter,
  defineHandler,
  type EventBus,
  type EventBusOptions,
  type EventHandlersConfig,
  HandlerTimeoutError,
  NonRetryableError,
} from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { type RecordCreated, recordCreated, recordPublished, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { failedHandlerJobs, openQueue } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('retries');

/** The attempt numbers `handler` ran with, in order. */
const attemptsOf = (rec: Recorder, handler: string, eventId?: string) =>
  rec.runs
    .filter((r) => r.handler === handler && (eventId === undefined || r.eventId === eventId))
    .map((r) => r.attempt);

describe.each(TRANSPORT_NAMES)('%s transport: retries and timeouts', (transport) => {
  const config = (name: string, overrides: CommitbusOptions = {}) =>
    fastConfig({ prefix: PREFIX, name: `${transport}-${name}`, ...overrides });

  /** A bus with a worker, on this block's transport. */
  async function start(options: EventBusOptions): Promise<EventBus> {
    return (await buses.start({ ...options, transport: testTransport(transport) })).bus;
  }

  /** Nothing in BullMQ's failed sets: work given up went to the dead-letter store. */
  async function expectNoFailedJobs(bus: EventBus): Promise<void> {
    if (transport === 'redis') expect(await failedHandlerJobs(redis, bus.config)).toBe(0);
  }

  it("counts attempts exactly and keeps every attempt's error, stack and time", async () => {
    const rec = new Recorder();
    const fail = (name: string, attempts: number, sync: boolean) => ({
      handler: rec.handler(name, (_e, ctx) => {
        throw new Error(`${ctx.handlerName} failed on attempt ${ctx.attempt}`);
      }),
      sync,
      attempts,
    });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        fail('count.sync', 3, true),
        [rec.handler('count.sync-after'), true],
        fail('count.async', 4, false),
        {
          handler: rec.handler('count.flaky', (_e, ctx) => {
            if (ctx.attempt < 2) throw new Error('flaky');
          }),
          attempts: 5,
        },
      ],
    };
    const bus = await start({ events: TEST_EVENTS, handlers, config: config('attempts') });
    const event = recordCreated('a');
    const publishedAt = Date.now();
    await bus.publish(event);
    await bus.whenIdle(10_000);

    expect(attemptsOf(rec, 'count.sync')).toEqual([1, 2, 3]);
    expect(attemptsOf(rec, 'count.async')).toEqual([1, 2, 3, 4]);
    expect(attemptsOf(rec, 'count.flaky')).toEqual([1, 2]);
    expect(rec.count('count.sync-after')).toBe(1);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => l.id).sort()).toEqual([`${event.id}.count.async`, `${event.id}.count.sync`]);
    for (const [handler, runs] of [
      ['count.sync', 3],
      ['count.async', 4],
    ] as const) {
      const letter = (await bus.deadLetters.get(`${event.id}.${handler}`)) as DeadLetter;
      expect(letter).toMatchObject({
        kind: 'handler',
        handler,
        eventId: event.id,
        handlingKey: 'RECORD.CREATE',
        reason: 'exhausted',
        error: `${handler} failed on attempt ${runs}`,
      });
      const numbers = Array.from({ length: runs }, (_, i) => i + 1);
      expect(letter.attempts.map((a) => [a.attempt, a.name, a.error])).toEqual(
        numbers.map((n) => [n, 'Error', `${handler} failed on attempt ${n}`]),
      );
      for (const a of letter.attempts) {
        expect(a.stack).toMatch(new RegExp(`^Error: ${handler} failed on attempt ${a.attempt}\\n`));
        expect(a.stack).toContain('retries-and-timeouts.test.ts');
      }
      const times = letter.attempts.map((a) => a.at.getTime());
      expect(times).toEqual([...times].sort((x, y) => x - y));
      expect(times[0]).toBeGreaterThanOrEqual(publishedAt);
      expect(letter.firstFailedAt).toEqual(letter.attempts[0]?.at);
      expect(letter.deadAt.getTime()).toBeGreaterThanOrEqual(times[times.length - 1] as number);
      expect(bus.serializer.deserialize(letter.payload).id).toBe(event.id);
    }
    await expectNoFailedJobs(bus);
  });

  it('waits a jittered backoff between attempts, between delay * (1 - jitter) and delay', async () => {
    const runsAt = new Map<string, number[]>();
    const failing = (name: string) =>
      defineHandler(name, () => {
        runsAt.set(name, [...(runsAt.get(name) ?? []), Date.now()]);
        throw new Error(`${name} is down`);
      });
    const backoff = { type: 'fixed', delayMs: 200, jitter: 0.5 } as const;
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        { handler: failing('jitter.sync'), sync: true, attempts: 3, backoff },
        { handler: failing('jitter.async'), attempts: 3, backoff },
      ],
    };
    const bus = await start({ events: TEST_EVENTS, handlers, config: config('jitter') });
    const event = recordCreated('a');
    await bus.publish(event);

    if (transport === 'redis') {
      // The jobs carry the handler's backoff under commitbus's own strategy: commitbus computes the waits.
      await waitFor('the first failures', () => runsAt.size === 2);
      const expected = { type: 'commitbus:fixed', delay: 200, jitter: 0.5 };
      const [asyncQueue, retryQueue] = [
        openQueue(redis, bus.config, 'async'),
        openQueue(redis, bus.config, 'retry'),
      ];
      try {
        // The drain adds the sync handler's retry job after its first run failed: wait for both jobs.
        const backoffs = new Map<string, unknown>();
        await waitFor('the async job and the sync retry job', async () => {
          for (const [queue, id] of [
            [asyncQueue, `${event.id}.jitter.async`],
            [retryQueue, `${event.id}.retry.jitter.sync.1`],
          ] as const) {
            const job = backoffs.has(id) ? undefined : await queue.getJob(id);
            if (job !== undefined) backoffs.set(id, job.opts.backoff);
          }
          return backoffs.size === 2;
        });
        expect([...backoffs.values()]).toEqual([expected, expected]);
      } finally {
        await Promise.all([asyncQueue.close(), retryQueue.close()]);
      }
    }
    await bus.whenIdle(10_000);

    for (const name of ['jitter.sync', 'jitter.async']) {
      const times = runsAt.get(name) ?? [];
      expect(times).toHaveLength(3);
      for (let i = 1; i < times.length; i++) {
        const gap = (times[i] as number) - (times[i - 1] as number);
        expect(gap, `${name} gap ${i}`).toBeGreaterThanOrEqual(100 - 2);
        expect(gap, `${name} gap ${i}`).toBeLessThan(200 + 400);
      }
    }
    expect((await bus.deadLetters.list()).map((l) => l.attempts.length)).toEqual([3, 3]);
  });

  it('times every retry by the attempt that failed, sync chain and async job alike, and tells onRetry that wait', async () => {
    const runsAt = new Map<string, number[]>();
    const retries: { handler: string; attempt: number; delayMs: number }[] = [];
    const failing = (name: string) =>
      defineHandler(name, () => {
        runsAt.set(name, [...(runsAt.get(name) ?? []), Date.now()]);
        throw new Error(`${name} is down`);
      });
    const backoff = { type: 'exponential', delayMs: 100, jitter: 0 } as const;
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        { handler: failing('doubling.sync'), sync: true, attempts: 4, backoff },
        { handler: failing('doubling.async'), attempts: 4, backoff },
      ],
    };
    const bus = await start({
      events: TEST_EVENTS,
      handlers,
      config: config('doubling'),
      onRetry: ({ handler, attempt, delayMs }) => void retries.push({ handler, attempt, delayMs }),
    });
    await bus.publish(recordCreated('a'));
    await bus.whenIdle(10_000);

    // The wait after attempt n is 100 * 2^(n-1) on both: a sync chain's retry job doubles from where the drain left off.
    for (const name of ['doubling.sync', 'doubling.async']) {
      const times = runsAt.get(name) ?? [];
      expect(times).toHaveLength(4);
      const told = retries.filter((r) => r.handler === name).sort((a, b) => a.attempt - b.attempt);
      expect(told.map((r) => [r.attempt, r.delayMs])).toEqual([
        [1, 100],
        [2, 200],
        [3, 400],
      ]);
      for (let i = 1; i < times.length; i++) {
        const gap = (times[i] as number) - (times[i - 1] as number);
        expect(gap, `${name} gap ${i}`).toBeGreaterThanOrEqual(100 * 2 ** (i - 1) - 2);
        expect(gap, `${name} gap ${i}`).toBeLessThan(100 * 2 ** (i - 1) + 400);
      }
    }
    await expectNoFailedJobs(bus);
  });

  it('times out a hung sync handler: the drain goes on, and the rest of the event still runs', async () => {
    const rec = new Recorder();
    const startedAt = new Map<string, number>();
    const aborted: unknown[] = [];
    const hangs = recordCreated('hangs');
    const next = recordCreated('next');
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          handler: rec.handler<RecordCreated>('hang.sync', (e, ctx) => {
            if (!startedAt.has(e.id)) startedAt.set(e.id, Date.now());
            if (e.id !== hangs.id) return;
            // Never settles; only notes that its signal was aborted.
            return new Promise<void>(() => {
              ctx.signal.addEventListener('abort', () => aborted.push(ctx.signal.reason));
            });
          }),
          sync: true,
          attempts: 2,
          timeoutMs: 300,
        },
        [rec.handler('hang.after'), true],
        rec.handler('hang.async'),
      ],
    };
    const bus = await start({ events: TEST_EVENTS, handlers, config: config('hung-sync') });
    await bus.publish([hangs, next]);
    await bus.whenIdle(10_000);

    // The hung run held the drain for its timeout, not longer.
    const held = (startedAt.get(next.id) as number) - (startedAt.get(hangs.id) as number);
    expect(held).toBeGreaterThanOrEqual(300 - 2);
    expect(held).toBeLessThan(300 + 700);
    expect(attemptsOf(rec, 'hang.sync', hangs.id)).toEqual([1, 2]);
    for (const event of [hangs, next]) {
      expect(rec.count('hang.after', event.id)).toBe(1);
      expect(rec.count('hang.async', event.id)).toBe(1);
    }
    const letters = await bus.deadLetters.list();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ id: `${hangs.id}.hang.sync`, reason: 'timeout' });
    for (const attempt of letters[0]?.attempts ?? []) {
      expect(attempt).toMatchObject({ name: 'HandlerTimeoutError', code: 'COMMITBUS_HANDLER_TIMEOUT' });
      expect(attempt.error).toContain(
        `handler "hang.sync" did not finish within 300 ms for event ${hangs.id}`,
      );
      // The option by its grouped name and variable, not the deprecated flat handlerTimeoutMs.
      expect(attempt.error).toContain(
        "the handler's option timeoutMs, or config handlers.timeoutMs (env COMMITBUS_HANDLERS_TIMEOUT_MS); 0 = no limit",
      );
      expect(attempt.error).not.toContain('handlerTimeoutMs');
      expect(attempt.stack).toMatch(/^HandlerTimeoutError: /);
    }
    expect(aborted).toHaveLength(2);
    for (const reason of aborted) expect(reason).toBeInstanceOf(HandlerTimeoutError);
    await expectNoFailedJobs(bus);
  });

  it('dead-letters a hung async handler after its attempts, each a HandlerTimeoutError', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.PUBLISH': [
        {
          handler: rec.handler('hang.async', () => new Promise<void>(() => {})),
          attempts: 2,
          timeoutMs: 100,
        },
        rec.handler('hang.other'),
      ],
    };
    const bus = await start({ events: TEST_EVENTS, handlers, config: config('hung-async') });
    const event = recordPublished('a');
    await bus.publish(event);
    await bus.whenIdle(10_000);

    expect(attemptsOf(rec, 'hang.async')).toEqual([1, 2]);
    expect(rec.count('hang.other')).toBe(1);
    const letter = await bus.deadLetters.get(`${event.id}.hang.async`);
    expect(letter).toMatchObject({ kind: 'handler', reason: 'timeout' });
    expect(letter?.attempts.map((a) => [a.attempt, a.name])).toEqual([
      [1, 'HandlerTimeoutError'],
      [2, 'HandlerTimeoutError'],
    ]);
    expect(letter?.error).toContain('did not finish within 100 ms');
    await expectNoFailedJobs(bus);
  });

  it("runs a handler once when it throws NonRetryableError or BullMQ's UnrecoverableError", async () => {
    const rec = new Recorder();
    const stop = (name: string, error: () => Error, sync: boolean) => ({
      handler: rec.handler(name, () => {
        throw error();
      }),
      sync,
      attempts: 5,
    });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        stop('stop.sync-non-retryable', () => new NonRetryableError('record is invalid'), true),
        stop('stop.sync-unrecoverable', () => new UnrecoverableError('no such account'), true),
        [rec.handler('stop.after'), true],
        stop('stop.async-non-retryable', () => new NonRetryableError('record is invalid'), false),
        stop('stop.async-unrecoverable', () => new UnrecoverableError('no such account'), false),
      ],
    };
    const bus = await start({ events: TEST_EVENTS, handlers, config: config('non-retryable') });
    await bus.publish(recordCreated('a'));
    await bus.whenIdle(10_000);

    const stopped = [
      'sync-non-retryable',
      'sync-unrecoverable',
      'async-non-retryable',
      'async-unrecoverable',
    ];
    for (const name of stopped) expect(attemptsOf(rec, `stop.${name}`), name).toEqual([1]);
    expect(rec.count('stop.after')).toBe(1);
    const letters = await bus.deadLetters.list({ reason: 'non-retryable' });
    expect(letters.map((l) => [l.handler, l.attempts.length, l.attempts[0]?.name]).sort()).toEqual([
      ['stop.async-non-retryable', 1, 'NonRetryableError'],
      ['stop.async-unrecoverable', 1, 'UnrecoverableError'],
      ['stop.sync-non-retryable', 1, 'NonRetryableError'],
      ['stop.sync-unrecoverable', 1, 'UnrecoverableError'],
    ]);
    expect(await bus.deadLetters.list()).toHaveLength(4);
    await expectNoFailedJobs(bus);
  });
});
