import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { HandlerJob } from '../../../src/handlers/handler-job.js';
import type { EventBus, EventBusOptions, EventHandlersConfig } from '../../../src/index.js';
import { bullmqJobId } from '../../../src/transports/redis/bullmq-job-id.js';
import { queueNamesOf } from '../../../src/transports/redis/index.js';
import { isRedisOutage } from '../../../src/transports/redis/redis-outage.js';
import { SqlTransport } from '../../../src/transports/sql/index.js';
import { fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';
import { isSettled, openQueue } from '../../helpers/redis.js';
import { redisTestBed } from '../../helpers/redis-test-bed.js';
import { type TransportName, testTransport } from '../../helpers/transports.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('poison');

/** A bus config under this file's prefix; `name` gives each test its own keys and queues. */
function config(transport: TransportName, name: string): Pick<EventBusOptions, 'config' | 'transport'> {
  return { config: fastConfig({ prefix: PREFIX, name }), transport: testTransport(transport) };
}

/** A valid `RECORD.CREATE` envelope with `change` applied, as a foreign or older publisher might write it. */
function foreignPayload(change: (envelope: { key: string; event: Record<string, unknown> }) => void): string {
  const envelope = {
    v: 1,
    key: 'RECORD.CREATE',
    event: { id: 'evt-foreign', createdAt: new Date().toISOString(), recid: 'f', title: 'F' },
  };
  change(envelope);
  return JSON.stringify(envelope);
}

/** Appends payloads to the bus's log the way a foreign publisher would: XADD on Redis, the SQL transport's publish on SQLite. */
async function appendRaw(bus: EventBus, payloads: readonly string[]): Promise<void> {
  if (bus.transport instanceof SqlTransport) {
    await bus.transport.publish(payloads.map((payload, i) => ({ id: `raw-${i}`, payload })));
    return;
  }
  for (const payload of payloads) await redis.xadd(queueNamesOf(bus.config).stream, '*', 'p', payload);
}

describe.each(['redis', 'sqlite'] as const)('poison input in a batch (%s)', (transport) => {
  it('dead-letters entries serialize would refuse (an id with ":", a null createdAt, a bad key, a constructor or __proto__ key) as malformed; the rest of their batch is handled once', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [[rec.handler('poison.sync'), true], rec.handler('poison.async')],
    };
    const bus = buses.create({ events: TEST_EVENTS, handlers, ...config(transport, 'batch') });
    const [first, last] = [recordCreated('first'), recordCreated('last')];
    const poison = [
      // BullMQ refused its job id, which failed the claim of its whole batch, forever.
      foreignPayload((e) => {
        e.event.id = 'tenant:42';
      }),
      // What `new Date('x')` became in JSON.
      foreignPayload((e) => {
        e.event.id = 'evt-null-date';
        e.event.createdAt = null;
      }),
      foreignPayload((e) => {
        e.event.id = 'evt-bad-key';
        e.key = 'RECORD:CREATE';
      }),
      // class-transformer threw a TypeError on it.
      foreignPayload((e) => {
        e.event.id = 'evt-constructor';
        e.event.tags = { constructor: 'x' };
      }),
      // class-transformer dropped it without a trace.
      foreignPayload((e) => {
        e.event.id = 'evt-proto';
      }).replace('"recid"', '"__proto__":{"admin":true},"recid"'),
    ];
    // All in the log before the worker starts: one batch.
    await bus.publish(first);
    await appendRaw(bus, poison);
    await bus.publish(last);
    await bus.startWorker({ handleSignals: false });

    await bus.whenIdle(15_000);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.eventId, l.kind, l.reason]).sort()).toEqual([
      ['evt-bad-key', 'undecodable', 'malformed'],
      ['evt-constructor', 'undecodable', 'malformed'],
      ['evt-null-date', 'undecodable', 'malformed'],
      ['evt-proto', 'undecodable', 'malformed'],
      ['tenant:42', 'undecodable', 'malformed'],
    ]);
    const errorOf = (id: string) => letters.find((l) => l.eventId === id)?.error;
    expect(errorOf('tenant:42')).toMatch(/event id "tenant:42" is not 1 to 128 letters, digits/);
    expect(errorOf('evt-null-date')).toMatch(/"createdAt" null is not a date string/);
    expect(errorOf('evt-bad-key')).toMatch(/handling key "RECORD:CREATE" is not dotted segments/);
    expect(errorOf('evt-constructor')).toMatch(/event\.tags\.constructor is a key class-transformer cannot/);
    expect(errorOf('evt-proto')).toMatch(/event\.__proto__ is a key class-transformer cannot decode/);
    for (const handler of ['poison.sync', 'poison.async']) {
      expect(rec.notRunOnce(handler, [first.id, last.id])).toEqual([]);
    }
    // Nothing left to claim again: the whole batch was acknowledged.
    expect(await bus.backlog()).toBe(0);
    if (transport === 'redis') {
      const stream = queueNamesOf(bus.config).stream;
      expect(await redis.xpending(stream, 'drains')).toEqual([0, null, null, null]);
      expect(await isSettled(redis, bus.config)).toBe(true);
    }
  });
});

describe('BullMQ job ids', () => {
  const job = (jobId: string, payload: string): HandlerJob => ({
    kind: 'async',
    jobId,
    payload,
    handler: 'jobid.async',
    attempts: 1,
    backoff: { type: 'fixed', delayMs: 0 },
    delayMs: 0,
  });

  it('are what BullMQ accepts, one-to-one, and the ids commitbus builds from valid events unchanged', () => {
    const ids = [
      'a:b',
      'a%003Ab',
      'a%0025003Ab',
      '12345',
      '%00312345',
      '-5',
      'x y',
      'é',
      '\u{1F600}',
      'a.b',
      '',
    ];
    const mapped = ids.map(bullmqJobId);
    expect(new Set(mapped).size).toBe(ids.length);
    for (const id of mapped) {
      expect(id).not.toContain(':');
      expect(`${Number.parseInt(id, 10)}`).not.toBe(id);
    }
    expect(bullmqJobId('a:b')).toBe('a%003Ab');
    expect(bullmqJobId('12345')).toBe('%00312345');
    const commitbusIds = [
      '01939b9e-7c1a-7cc4-9d4b-0f1e2d3c4b5a.mail.send',
      'evt_1.retry.h.1',
      'e.h.parked-x',
    ];
    expect(commitbusIds.map(bullmqJobId)).toEqual(commitbusIds);
  });

  it('lets the Redis adapter take any job id, and one added twice still runs once', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [rec.handler('jobid.async')] };
    const bus = buses.create({ events: TEST_EVENTS, handlers, ...config('redis', 'jobids') });
    const { payload } = bus.encode(recordCreated('j'));
    // 'a:b' and 'a%003Ab' must not collide: 'a:b' is mapped to 'a%003Ab''s own text.
    const ids = ['tenant:42.jobid.async', '12345', 'a:b', 'a%003Ab'];
    await bus.transport.jobs.enqueue(ids.map((id) => job(id, payload)));
    await bus.transport.jobs.enqueue(ids.map((id) => job(id, payload)));

    const queue = openQueue(redis, bus.config, 'async');
    try {
      expect(await queue.getJobCounts('waiting')).toEqual({ waiting: ids.length });
      for (const id of ids) expect((await queue.getJob(bullmqJobId(id)))?.data.handler).toBe('jobid.async');
    } finally {
      await queue.close();
    }
    await bus.startWorker({ handleSignals: false });
    await bus.whenIdle(10_000);
    expect(rec.count('jobid.async')).toBe(ids.length);
  });

  it('tell an outage (retry later) from a command Redis refuses (sending it again would fail again)', async () => {
    const key = `${PREFIX}:wrongtype`;
    await redis.set(key, 'a string');
    const wrongType = await redis.lpush(key, 'x').catch((error: unknown) => error);
    expect((wrongType as Error).message).toMatch(/^WRONGTYPE/);
    expect(isRedisOutage(wrongType)).toBe(false);
    const closed = new Redis(redis.options);
    await closed.quit();
    expect(isRedisOutage(await closed.get(key).catch((error: unknown) => error))).toBe(true);
  });
});
