import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/bus/transport.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import {
  type CommitbusOptions,
  type DeadLetter,
  DeadLetterRedriveError,
  defineHandler,
  Event,
  EventBus,
  type EventBusOptions,
  type EventHandlersConfig,
  EventType,
  silentLogger,
} from '../../src/index.js';
import { MemoryTransport } from '../../src/transports/memory/index.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, recordPublished, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { deadLetterKeys, deleteKeys, failedHandlerJobs, openRedis, testPrefix } from '../helpers/redis.js';
import { TRANSPORT_NAMES, testRedis, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const PREFIX = testPrefix('dead-letters');
const redis = openRedis();
const open: EventBus[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((bus) => bus.close()));
});
afterAll(async () => {
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

/** Deployed later: the first workers of a test do not know this class. */
@EventType('RECORD.ARCHIVE')
class RecordArchived extends Event {
  recid!: string;
}

describe.each(TRANSPORT_NAMES)('%s transport: dead letters', (transport) => {
  const config = (name: string, overrides: CommitbusOptions = {}) =>
    fastConfig({ prefix: PREFIX, name: `${transport}-${name}`, ...overrides });

  /** A bus on `shared` (memory: buses of one "deployment history" share one transport) or its own. */
  function bus(options: EventBusOptions, shared?: Transport): EventBus {
    const created = new EventBus(
      { logger: silentLogger, transport: testTransport(transport), ...options },
      shared,
    );
    open.push(created);
    return created;
  }

  async function started(options: EventBusOptions): Promise<EventBus> {
    const b = bus(options);
    await b.startWorker({ handleSignals: false });
    return b;
  }

  /** Writes payloads straight into the bus's event log, bypassing the serializer. */
  async function pushRaw(target: EventBus, payloads: string[]): Promise<void> {
    if (target.transport instanceof MemoryTransport) {
      await target.transport.publish(
        payloads.map((payload, i) => ({ id: `raw-${Date.now()}-${i}`, payload })),
      );
      return;
    }
    for (const payload of payloads) await redis.xadd(queueNamesOf(target.config).stream, '*', 'p', payload);
  }

  /** What is left in Redis: nothing in BullMQ's failed sets, and how many dead-letter keys. */
  async function expectLeftInRedis(target: EventBus, letterKeys: number): Promise<void> {
    if (transport !== 'redis') return;
    expect(await failedHandlerJobs(redis, target.config)).toBe(0);
    expect(await deadLetterKeys(redis, target.config)).toBe(letterKeys);
  }

  it('lists with filters and gets by id; a failure delivered again stays one letter', async () => {
    const failing = (name: string) =>
      defineHandler(name, () => {
        throw new Error(`${name} is down`);
      });
    const handlers: EventHandlersConfig = {
      RECORD: [{ handler: failing('list.sync'), sync: true, attempts: 1 }],
      'RECORD.PUBLISH': [{ handler: failing('list.async'), attempts: 1 }],
    };
    const b = await started({ events: TEST_EVENTS, handlers, config: config('list') });
    const [created, published1, published2] = [
      recordCreated('c1'),
      recordPublished('p1'),
      recordPublished('p2'),
    ];
    await b.publish(created);
    await b.whenIdle(10_000);
    await pushRaw(b, ['{"not":"an envelope"}']);
    await b.publish([published1, published2]);
    await b.whenIdle(10_000);
    const first = await b.deadLetters.get(`${published1.id}.list.sync`);
    await b.publish(published1); // redelivered: its handlers fail again
    await b.whenIdle(10_000);

    const all = await b.deadLetters.list();
    expect(all).toHaveLength(6);
    const deadAts = all.map((l) => l.deadAt.getTime());
    expect(deadAts).toEqual([...deadAts].sort((x, y) => x - y));
    const again = await b.deadLetters.get(`${published1.id}.list.sync`);
    expect(again?.deadAt.getTime()).toBeGreaterThanOrEqual(first?.deadAt.getTime() as number);
    expect(all.filter((l) => l.id === `${published1.id}.list.sync`)).toHaveLength(1);

    const ids = async (filter: Parameters<typeof b.deadLetters.list>[0]) =>
      (await b.deadLetters.list(filter)).map((l) => l.id).sort();
    expect(await ids({ handler: 'list.async' })).toEqual(
      [`${published1.id}.list.async`, `${published2.id}.list.async`].sort(),
    );
    expect(await ids({ eventId: published1.id })).toEqual([
      `${published1.id}.list.async`,
      `${published1.id}.list.sync`,
    ]);
    expect(await ids({ handlingKey: 'RECORD.CREATE' })).toEqual([`${created.id}.list.sync`]);
    expect(await ids({ handler: 'list.sync', handlingKey: 'RECORD.PUBLISH' })).toEqual(
      [`${published1.id}.list.sync`, `${published2.id}.list.sync`].sort(),
    );
    expect(await ids({ reason: 'exhausted' })).toHaveLength(5);
    const [undecodable] = await b.deadLetters.list({ kind: 'undecodable' });
    expect(undecodable).toMatchObject({ reason: 'malformed', payload: '{"not":"an envelope"}' });
    expect(undecodable?.id).toMatch(/^undecodable\.[0-9a-f]{32}$/);
    expect(await b.deadLetters.list({ limit: 2 })).toEqual(all.slice(0, 2));
    expect(await b.deadLetters.get(all[3]?.id as string)).toEqual(all[3]);
    expect(await b.deadLetters.get('no-such-letter')).toBeUndefined();
    await expectLeftInRedis(b, 2);
  });

  it('re-drives one letter, a filter, or all: only the failed handler runs, as a fresh job', async () => {
    const rec = new Recorder();
    let broken = true;
    const failing = (name: string) =>
      rec.handler(name, () => {
        if (broken) throw new Error(`${name} is down`);
      });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('re.sync-first'), true],
        { handler: failing('re.sync'), sync: true, attempts: 2 },
        [rec.handler('re.sync-after'), true],
        rec.handler('re.async-ok'),
        { handler: failing('re.async'), attempts: 2 },
      ],
    };
    const b = await started({ events: TEST_EVENTS, handlers, config: config('redrive') });
    const [e1, e2, e3] = [recordCreated('e1'), recordCreated('e2'), recordCreated('e3')];
    await b.publish([e1, e2, e3]);
    await b.whenIdle(10_000);
    expect(await b.deadLetters.list()).toHaveLength(6);
    const names = ['re.sync-first', 're.sync', 're.sync-after', 're.async-ok', 're.async'];
    const counts = () => Object.fromEntries(names.map((n) => [n, rec.count(n)]));
    let expected = { 're.sync-first': 3, 're.sync': 6, 're.sync-after': 3, 're.async-ok': 3, 're.async': 6 };
    expect(counts()).toEqual(expected);

    // Still broken: the handler gets all its attempts again, then comes back as a letter.
    const before = await b.deadLetters.get(`${e1.id}.re.sync`);
    expect(await b.deadLetters.redrive(`${e1.id}.re.sync`)).toBe(1);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 8 };
    expect(counts()).toEqual(expected);
    expect(
      rec.runs.filter((r) => r.handler === 're.sync' && r.eventId === e1.id).map((r) => r.attempt),
    ).toEqual([1, 2, 1, 2]);
    const back = await b.deadLetters.get(`${e1.id}.re.sync`);
    expect(back?.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(back?.deadAt.getTime()).toBeGreaterThan(before?.deadAt.getTime() as number);

    broken = false;
    expect(await b.deadLetters.redrive(`${e1.id}.re.sync`)).toBe(1);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 9 };
    expect(counts()).toEqual(expected);
    expect(await b.deadLetters.list()).toHaveLength(5);

    expect(await b.deadLetters.redrive({ eventId: e2.id })).toBe(2);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 10, 're.async': 7 };
    expect(counts()).toEqual(expected);
    expect(await b.deadLetters.list({ eventId: e2.id })).toEqual([]);

    expect(await b.deadLetters.redrive('all')).toBe(3);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 11, 're.async': 9 };
    expect(counts()).toEqual(expected);
    // Each re-driven run was a fresh first attempt.
    expect(
      rec.runs
        .filter((r) => r.handler === 're.async')
        .slice(-3)
        .map((r) => r.attempt),
    ).toEqual([1, 1, 1]);
    expect(await b.deadLetters.list()).toEqual([]);
    expect(await b.deadLetters.redrive('all')).toBe(0);
    expect(await b.deadLetters.redrive('no-such-letter')).toBe(0);
    await expectLeftInRedis(b, 0);
  });

  it('purges one letter, a filter, or all, without running anything', async () => {
    const rec = new Recorder();
    const failing = (name: string) =>
      rec.handler(name, () => {
        throw new Error(`${name} is down`);
      });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        { handler: failing('purge.sync'), sync: true, attempts: 1 },
        { handler: failing('purge.async'), attempts: 1 },
      ],
    };
    const b = await started({ events: TEST_EVENTS, handlers, config: config('purge') });
    const [e1, e2, e3] = [recordCreated('e1'), recordCreated('e2'), recordCreated('e3')];
    await b.publish([e1, e2, e3]);
    await b.whenIdle(10_000);
    expect(await b.deadLetters.list()).toHaveLength(6);
    await expectLeftInRedis(b, 2);

    expect(await b.deadLetters.purge(`${e1.id}.purge.sync`)).toBe(1);
    expect(await b.deadLetters.purge(`${e1.id}.purge.sync`)).toBe(0);
    expect(await b.deadLetters.purge({ handler: 'purge.async' })).toBe(3);
    await expect(b.deadLetters.purge({})).rejects.toThrow("pass 'all'");
    expect((await b.deadLetters.list()).map((l) => l.id).sort()).toEqual(
      [`${e2.id}.purge.sync`, `${e3.id}.purge.sync`].sort(),
    );
    expect(await b.deadLetters.purge('all')).toBe(2);
    await b.whenIdle(10_000);

    expect(await b.deadLetters.list()).toEqual([]);
    expect([rec.count('purge.sync'), rec.count('purge.async')]).toEqual([3, 3]);
    await expectLeftInRedis(b, 0);
  });

  it('dead-letters undecodable payloads, goes on, and republishes them once their class is deployed', async () => {
    const rec = new Recorder();
    const shared =
      transport === 'memory' ? new MemoryTransport(resolveOptions(config('undecodable'))) : undefined;
    const oldHandlers: EventHandlersConfig = { RECORD: [[rec.handler('old.record'), true]] };
    const oldWorker = bus(
      { events: TEST_EVENTS, handlers: oldHandlers, config: config('undecodable') },
      shared,
    );
    const running = await oldWorker.startWorker({ handleSignals: false });
    // A service already deployed with the new class publishes before the workers know it.
    const newPublisher = bus(
      { events: [...TEST_EVENTS, RecordArchived], config: config('undecodable') },
      shared,
    );
    const archived = RecordArchived.create({ recid: 'a1' });
    const garbage = 'this is {not json';
    await pushRaw(oldWorker, [garbage, garbage]);
    await newPublisher.publish(archived);
    const after = recordCreated('after');
    await oldWorker.publish(after);
    await oldWorker.whenIdle(10_000);

    expect(rec.order(after.id)).toEqual(['old.record']);
    const letters = await oldWorker.deadLetters.list({ kind: 'undecodable' });
    expect(letters.map((l) => l.reason).sort()).toEqual(['malformed', 'unknown-event-type']);
    const unknown = letters.find((l) => l.reason === 'unknown-event-type') as DeadLetter;
    expect(unknown).toMatchObject({ eventId: archived.id, handlingKey: 'RECORD.ARCHIVE' });
    expect(unknown.error).toMatch(/no event class registered for "RECORD\.ARCHIVE"/);
    expect(unknown.attempts).toHaveLength(1);
    const notJson = letters.find((l) => l.reason === 'malformed') as DeadLetter;
    expect(notJson.payload).toBe(garbage);

    // Re-driven where the class is still unknown: a clear error, and the letter stays.
    const refused = await oldWorker.deadLetters.redrive(unknown.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DeadLetterRedriveError);
    expect(refused).toMatchObject({ code: 'COMMITBUS_DEAD_LETTER_REDRIVE', redriven: 0 });
    expect((refused as Error).message).toContain(
      `${unknown.id}: no event class registered for "RECORD.ARCHIVE"`,
    );
    expect((refused as Error).message).toContain('Register the missing event classes');
    expect(await oldWorker.deadLetters.get(unknown.id)).toEqual(unknown);

    // Deploy: workers that know RecordArchived replace the old ones.
    await running.close();
    const archive = rec.handler('archive.record');
    const newWorker = bus(
      {
        events: [...TEST_EVENTS, RecordArchived],
        handlers: { ...oldHandlers, 'RECORD.ARCHIVE': [archive] },
        config: config('undecodable'),
      },
      shared,
    );
    await newWorker.startWorker({ handleSignals: false });
    expect(await newWorker.deadLetters.redrive({ kind: 'undecodable', reason: 'unknown-event-type' })).toBe(
      1,
    );
    await newWorker.whenIdle(10_000);
    expect(rec.order(archived.id)).toEqual(['old.record', 'archive.record']);

    // Garbage stays garbage.
    await expect(newWorker.deadLetters.redrive('all')).rejects.toThrow(
      /malformed event payload \(not valid JSON\)/,
    );
    expect((await newWorker.deadLetters.list()).map((l) => l.id)).toEqual([notJson.id]);
    expect(await newWorker.deadLetters.purge('all')).toBe(1);
    await expectLeftInRedis(newWorker, 0);
  });
});

describe('bullmq transport: dead letters across deploys', () => {
  it('dead-letters a queued retry whose handler the new workers lack, and will not re-drive it there', async () => {
    const rec = new Recorder();
    const config = fastConfig({ prefix: PREFIX, name: 'deploy-handler' });
    const old = new EventBus({
      events: TEST_EVENTS,
      logger: silentLogger,
      transport: testRedis(),
      config,
      handlers: {
        'RECORD.CREATE': [
          {
            handler: rec.handler('legacy.sync', () => {
              throw new Error('legacy store is down');
            }),
            sync: true,
            attempts: 2,
            backoff: { type: 'fixed', delayMs: 300, jitter: 0 },
          },
        ],
      },
    });
    open.push(old);
    const oldWorker = await old.startWorker({ handleSignals: false });
    const event = recordCreated('r1');
    await old.publish(event);
    await waitFor('the first attempt, in the drain', () => rec.count('legacy.sync') === 1);
    await oldWorker.close();

    // The new deployment dropped legacy.sync; its retry job is still queued.
    const current = new EventBus({
      events: TEST_EVENTS,
      logger: silentLogger,
      transport: testRedis(),
      config,
      handlers: { 'RECORD.CREATE': [[rec.handler('current.sync'), true]] },
    });
    open.push(current);
    await current.startWorker({ handleSignals: false });
    await current.whenIdle(10_000);

    expect(rec.count('legacy.sync')).toBe(1);
    const letter = await current.deadLetters.get(`${event.id}.legacy.sync`);
    expect(letter).toMatchObject({ reason: 'unknown-handler', handler: 'legacy.sync' });
    expect(letter?.attempts.map((a) => [a.attempt, a.name])).toEqual([
      [1, 'Error'],
      [2, 'UnknownHandlerError'],
    ]);
    await expect(current.deadLetters.redrive(`${event.id}.legacy.sync`)).rejects.toThrow(
      'no handler named "legacy.sync" for "RECORD.CREATE" on this worker',
    );
    expect(await current.deadLetters.get(`${event.id}.legacy.sync`)).toEqual(letter);
    expect(await failedHandlerJobs(redis, current.config)).toBe(0);
  });
});

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
