import { describe, expect, it } from 'vitest';
import {
  type CommitbusOptions,
  defineHandler,
  type Event,
  type EventBus,
  type EventHandlersConfig,
} from '../../../src/index.js';
import { queueNamesOf } from '../../../src/transports/redis/index.js';
import { fastConfig } from '../../helpers/buses.js';
import {
  type RecordCreated,
  type RecordPublished,
  recordCreated,
  recordPublished,
  TEST_EVENTS,
} from '../../helpers/events.js';
import {
  expectHierarchicalOrder,
  HIERARCHY_RUNS,
  hierarchyEvents,
  hierarchyHandlers,
} from '../../helpers/hierarchy.js';
import { Recorder } from '../../helpers/recorder.js';
import { isSettled, jobCounts, openQueue } from '../../helpers/redis.js';
import { redisTestBed } from '../../helpers/redis-test-bed.js';
import { testRedis } from '../../helpers/transports.js';
import { waitFor } from '../../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('dispatch');

/** A bullmq bus config under this file's prefix; `name` gives each test its own queues. */
function bullmq(name: string, overrides: CommitbusOptions = {}) {
  return { config: fastConfig({ prefix: PREFIX, name, ...overrides }), transport: testRedis() };
}

const settled = (bus: EventBus) => () => isSettled(redis, bus.config);

describe('bullmq transport: dispatch', () => {
  it('runs the handlers of A, then A.B, then A.B.C, each key in configured order', async () => {
    const rec = new Recorder();
    const decoded: string[] = [];
    const handlers = hierarchyHandlers(rec, decoded);
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, ...bullmq('order') });
    const events = hierarchyEvents();
    await bus.publish(Object.values(events));

    await waitFor('every handler of the four events', async () => {
      return rec.runs.length === HIERARCHY_RUNS && (await settled(bus)());
    });

    expectHierarchicalOrder(rec, events, decoded);
  });

  it('runs sync entries inline in a drain and async entries as their own BullMQ jobs', async () => {
    const rec = new Recorder();
    const name = 'forms';
    const asyncQueue = openQueue(redis, { redis: { prefix: PREFIX }, name }, 'async');
    const drainQueue = openQueue(redis, { redis: { prefix: PREFIX }, name }, 'drain');
    const seenBySync: string[] = [];
    const seenByAsync: string[] = [];
    // While a sync handler runs, a drain is active and no async job of its event exists yet.
    const sync = async (e: Event) => {
      const [drains, job] = await Promise.all([
        drainQueue.getActiveCount(),
        asyncQueue.getJobState(`${e.id}.form.bare`),
      ]);
      seenBySync.push(`drains:${drains > 0} async-job:${job}`);
    };
    // An async handler runs inside the BullMQ job `${eventId}.${handlerName}`.
    const async = async (e: Event, ctx: { handlerName: string }) => {
      seenByAsync.push(await asyncQueue.getJobState(`${e.id}.${ctx.handlerName}`));
    };
    const asyncNames = ['form.bare', 'form.tuple-async', 'form.object-async', 'form.object-default'];
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('form.tuple-sync', sync), true],
        rec.handler('form.bare', async),
        [rec.handler('form.tuple-async', async), false],
        { handler: rec.handler('form.object-sync', sync), sync: true },
        { handler: rec.handler('form.object-async', async), sync: false },
        { handler: rec.handler('form.object-default', async) },
      ],
    };
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, ...bullmq(name) });
    const events = Array.from({ length: 20 }, (_, i) => recordCreated(`r${i}`));
    const ids = events.map((e) => e.id);
    await bus.publish(events);

    await waitFor('every async handler of 20 events', () => asyncNames.every((h) => rec.count(h) === 20));
    await waitFor('the async queue to empty', settled(bus));
    await Promise.all([asyncQueue.close(), drainQueue.close()]);

    for (const event of events) {
      expect(rec.order(event.id, ['form.tuple-sync', 'form.object-sync'])).toEqual([
        'form.tuple-sync',
        'form.object-sync',
      ]);
    }
    for (const handler of asyncNames) {
      expect(rec.notRunOnce(handler, ids)).toEqual([]);
    }
    expect(seenBySync).toEqual(Array(40).fill('drains:true async-job:unknown'));
    expect(seenByAsync).toEqual(Array(80).fill('active'));
    expect(await jobCounts(redis, bus.config, 'async')).toEqual({
      waiting: 0,
      active: 0,
      delayed: 0,
      prioritized: 0,
      completed: 0,
      failed: 0,
    });
  });

  it('handles every published event exactly once and leaves the stream empty', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      RECORD: [[rec.handler('once.sync'), true], rec.handler('once.async')],
    };
    const onRedis = bullmq('once', { maxEvents: 40, batchSize: 15 });
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, ...onRedis });
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 50 }, (_, i) =>
        i % 2 ? recordCreated(`${b}-${i}`) : recordPublished(`${b}-${i}`),
      ),
    );
    await Promise.all(batches.map((batch) => bus.publish(batch)));

    await waitFor('300 events through both handlers', async () => {
      return rec.count('once.async') >= 300 && (await settled(bus)());
    });

    const ids = batches.flat().map((e) => e.id);
    expect(rec.notRunOnce('once.sync', ids)).toEqual([]);
    expect(rec.notRunOnce('once.async', ids)).toEqual([]);
    const names = queueNamesOf(bus.config);
    expect(await redis.xlen(names.stream)).toBe(0);
    expect(await redis.xpending(names.stream, names.group)).toEqual([0, null, null, null]);
    expect(await bus.deadLetters.list()).toEqual([]);
  });

  it('retries a failing sync handler from where the chain stopped, up to its attempts', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('flaky.before'), true],
        {
          handler: rec.handler('flaky.save', (e, ctx) => {
            if (ctx.attempt < 3) throw new Error(`save of ${e.id} failed on attempt ${ctx.attempt}`);
          }),
          sync: true,
          attempts: 3,
          backoff: { type: 'fixed', delayMs: 10 },
        },
        [rec.handler('flaky.after'), true],
      ],
    };
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, ...bullmq('flaky') });
    const event = recordCreated('flaky');
    await bus.publish(event);

    await waitFor('the chain to finish after the third attempt', async () => {
      return rec.count('flaky.after') === 1 && (await settled(bus)());
    });

    expect(rec.order(event.id)).toEqual([
      'flaky.before',
      'flaky.save',
      'flaky.save',
      'flaky.save',
      'flaky.after',
    ]);
    expect(rec.runs.filter((r) => r.handler === 'flaky.save').map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(await bus.deadLetters.list()).toEqual([]);
    expect(await jobCounts(redis, bus.config, 'retry')).toMatchObject({ failed: 0, waiting: 0, delayed: 0 });
  });

  it('dead-letters a sync handler that always fails, then runs the rest of its chain; other events flow on', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          handler: rec.handler<RecordCreated>('poison.check', (e) => {
            if (e.recid === 'r2') throw new Error('record r2 is poisoned');
          }),
          sync: true,
          attempts: 2,
        },
        [rec.handler('poison.after'), true],
      ],
    };
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, ...bullmq('poison') });
    const first = Array.from({ length: 5 }, (_, i) => recordCreated(`r${i}`));
    await bus.publish(first);
    await waitFor('the poisoned event to be dead-lettered', async () => {
      return (await bus.deadLetters.list()).length === 1;
    });
    const later = Array.from({ length: 5 }, (_, i) => recordCreated(`later${i}`));
    await bus.publish(later);
    await waitFor('the events published afterwards', async () => {
      return rec.count('poison.after') === 10 && (await settled(bus)());
    });

    const poisoned = first[2] as RecordCreated;
    const letters = await bus.deadLetters.list();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      id: `${poisoned.id}.poison.check`,
      kind: 'handler',
      handler: 'poison.check',
      reason: 'exhausted',
      eventId: poisoned.id,
      handlingKey: 'RECORD.CREATE',
      error: 'record r2 is poisoned',
    });
    expect(letters[0]?.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    // Given up, it no longer holds back the handler after it in the chain.
    expect(rec.runs.filter((r) => r.eventId === poisoned.id).map((r) => `${r.handler}#${r.attempt}`)).toEqual(
      ['poison.check#1', 'poison.check#2', 'poison.after#1'],
    );
    for (const event of [...first, ...later].filter((e) => e !== poisoned)) {
      expect(rec.order(event.id)).toEqual(['poison.check', 'poison.after']);
    }
    expect(await jobCounts(redis, bus.config, 'retry')).toMatchObject({ failed: 0, completed: 0 });
  });

  it('dead-letters an async handler that always fails after all its attempts; its job completes', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.PUBLISH': [
        {
          handler: rec.handler<RecordPublished>('async.broken', (e) => {
            throw new Error(`mailer down for ${e.recid}`);
          }),
          attempts: 3,
          backoff: { type: 'fixed', delayMs: 10 },
        },
      ],
    };
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, ...bullmq('async-broken') });
    const events = [recordPublished('a'), recordPublished('b')];
    await bus.publish(events);

    await waitFor('both async handlers to be dead-lettered', async () => {
      return (await bus.deadLetters.list()).length === 2 && (await settled(bus)());
    });

    const letters = await bus.deadLetters.list();
    for (const event of events) {
      expect(letters.find((l) => l.eventId === event.id)).toMatchObject({
        id: `${event.id}.async.broken`,
        kind: 'handler',
        handler: 'async.broken',
        handlingKey: 'RECORD.PUBLISH',
        reason: 'exhausted',
        error: `mailer down for ${event.recid}`,
      });
      expect(letters.find((l) => l.eventId === event.id)?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      expect(rec.runs.filter((r) => r.eventId === event.id).map((r) => r.attempt)).toEqual([1, 2, 3]);
    }
    // Nothing piles up in BullMQ: the jobs completed and were removed.
    expect(await jobCounts(redis, bus.config, 'async')).toMatchObject({
      failed: 0,
      completed: 0,
      waiting: 0,
      delayed: 0,
    });
  });

  it('dead-letters undecodable payloads and goes on with the events after them', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { RECORD: [[rec.handler('undecodable.next'), true]] };
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, ...bullmq('undecodable') });
    const stream = queueNamesOf(bus.config).stream;
    const garbage = 'this is {not json';
    const unknownKey = JSON.stringify({
      v: 1,
      key: 'RECORD.DELETE',
      event: { id: 'evt-unknown', createdAt: new Date().toISOString() },
    });
    await redis.xadd(stream, '*', 'p', garbage);
    await redis.xadd(stream, '*', 'p', unknownKey);
    const after = recordCreated('after');
    await bus.publish(after);

    await waitFor('two undecodable dead letters and the event after them', async () => {
      return (await bus.deadLetters.list()).length === 2 && rec.count('undecodable.next') === 1;
    });

    const letters = await bus.deadLetters.list();
    expect(letters.every((l) => l.kind === 'undecodable')).toBe(true);
    const notJson = letters.find((l) => l.payload === garbage);
    expect(notJson?.reason).toBe('malformed');
    expect(notJson?.error).toMatch(/malformed event payload \(not valid JSON\)/);
    const unknown = letters.find((l) => l.payload === unknownKey);
    expect(unknown).toMatchObject({
      eventId: 'evt-unknown',
      handlingKey: 'RECORD.DELETE',
      reason: 'unknown-event-type',
    });
    expect(unknown?.error).toMatch(/no event class registered for "RECORD\.DELETE" \(known: RECORD, /);
    expect(rec.order(after.id)).toEqual(['undecodable.next']);
    await waitFor('the stream to empty', settled(bus));
  });

  it('refuses handler names with ":", which BullMQ job ids cannot contain', () => {
    // Such a handler's job ids made addBulk throw, so its drain failed on every redelivery.
    expect(() => defineHandler('notify:email', () => {})).toThrow(/handler name "notify:email" is invalid/);
  });
});
