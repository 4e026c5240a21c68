import { describe, expect, it } from 'vitest';
import type { CommitbusOptions, DrainResult, EventHandlersConfig } from '../../../src/index.js';
import { queueNamesOf } from '../../../src/transports/redis/index.js';
import { fastConfig } from '../../helpers/buses.js';
import { childWorkers, spawnWorker } from '../../helpers/child-worker.js';
import { RecordEvent, recordCreated, recordPublished, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';
import { jobCounts, redisEnv, streamLength } from '../../helpers/redis.js';
import { redisTestBed } from '../../helpers/redis-test-bed.js';
import { testRedis } from '../../helpers/transports.js';
import { waitFor } from '../../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('drains');
const children = childWorkers();

function bullmq(name: string, overrides: CommitbusOptions = {}) {
  return { config: fastConfig({ prefix: PREFIX, name, ...overrides }), transport: testRedis() };
}

describe('bullmq transport: drains', () => {
  it('appends and acknowledges batches larger than one Lua unpack() can take', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { RECORD: [[rec.handler('big.batch'), true]] };
    const drains: DrainResult[] = [];
    const onRedis = bullmq('big-batch', { batchSize: 9_000, maxEvents: 9_000, maxConcurrentDrains: 1 });
    const publisher = buses.create({ events: TEST_EVENTS, handlers, ...onRedis });
    await publisher.publish(Array.from({ length: 9_000 }, (_, i) => recordCreated(`r${i}`)));
    expect(await streamLength(redis, publisher.config)).toBe(9_000);

    await buses.start(
      { events: TEST_EVENTS, handlers, ...onRedis },
      { onDrain: (result) => drains.push(result) },
    );
    await waitFor('one drain to take all 9,000 events', () => drains.length >= 1, {
      describe: () => ({ handled: rec.count('big.batch') }),
    });
    expect(drains[0]).toMatchObject({ handled: 9_000, reason: 'maxEvents', backlog: 0 });
    expect(rec.count('big.batch')).toBe(9_000);
    expect(await streamLength(redis, publisher.config)).toBe(0);
  });

  it('starts one drain per burst of publishes: the kick job is deduplicated', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { RECORD: [[rec.handler('kick.count'), true]] };
    const onRedis = bullmq('kick');
    const publisher = buses.create({ events: TEST_EVENTS, handlers, ...onRedis });
    for (let i = 0; i < 20; i++) await publisher.publish(recordCreated(`r${i}`));
    await waitFor(
      'the last kick to land',
      async () => (await jobCounts(redis, publisher.config, 'drain')).waiting === 1,
    );
    expect(await jobCounts(redis, publisher.config, 'drain')).toMatchObject({ waiting: 1, active: 0 });

    await buses.start({ events: TEST_EVENTS, handlers, ...onRedis });
    await waitFor('20 events handled', () => rec.count('kick.count') === 20);
    expect(await streamLength(redis, publisher.config)).toBe(0);
  });

  it('the job scheduler starts drains for events no publish kicked', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { RECORD: [[rec.handler('beat.count'), true]] };
    const drains: DrainResult[] = [];
    // Short-lived drains, so only the scheduler's next beat can pick up what arrives later.
    const onRedis = bullmq('beat', { scheduleEveryMs: 200, ttlMs: 100, maxConcurrentDrains: 1 });
    const { bus } = await buses.start(
      { events: TEST_EVENTS, handlers, ...onRedis },
      { onDrain: (result) => drains.push(result) },
    );
    await waitFor('the first beat drain to end', () => drains.length >= 1);
    // Written straight to the stream: no publish, so no kick.
    const events = [recordCreated('b1'), recordCreated('b2')];
    for (const event of events) {
      await redis.xadd(queueNamesOf(bus.config).stream, '*', 'p', bus.serializer.serialize(event).payload);
    }
    await waitFor('both events handled by a scheduled drain', () => rec.count('beat.count') === 2, {
      describe: () => ({ drains: drains.length }),
    });
    expect(rec.runs.map((r) => r.eventId)).toEqual(events.map((e) => e.id));
    const handledByLater = () => drains.slice(1).reduce((sum, d) => sum + d.handled, 0);
    await waitFor('the scheduled drain that took them to report', () => handledByLater() === 2);
    expect(drains[0]?.handled).toBe(0);
  });

  it('stops a drain at maxEvents and lets its successor take the rest', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { RECORD: [[rec.handler('drain.count'), true]] };
    const drains: DrainResult[] = [];
    const onRedis = bullmq('max-events', { maxEvents: 10, maxConcurrentDrains: 1 });
    const { bus } = await buses.start(
      { events: TEST_EVENTS, handlers, ...onRedis },
      { onDrain: (result) => drains.push(result) },
    );
    const events = Array.from({ length: 35 }, (_, i) => recordCreated(`r${i}`));
    await bus.publish(events);

    await waitFor(
      '35 events handled by drains of at most 10',
      async () => rec.count('drain.count') === 35 && (await streamLength(redis, bus.config)) === 0,
      { describe: () => ({ handled: rec.count('drain.count'), drains }) },
    );
    await waitFor('three drains to report', () => drains.length >= 3);

    expect(drains.slice(0, 3).map(({ handled, reason, backlog }) => ({ handled, reason, backlog }))).toEqual([
      { handled: 10, reason: 'maxEvents', backlog: 25 },
      { handled: 10, reason: 'maxEvents', backlog: 15 },
      { handled: 10, reason: 'maxEvents', backlog: 5 },
    ]);
    expect(new Set(drains.map((d) => d.consumer)).size).toBe(drains.length);
    expect(
      rec.notRunOnce(
        'drain.count',
        events.map((e) => e.id),
      ),
    ).toEqual([]);
    // Handled in publish order: one drain at a time reads the stream front to back.
    expect(rec.runs.map((r) => r.eventId)).toEqual(events.map((e) => e.id));
  });

  it('stops a drain when its ttl has passed and lets its successors finish the rest', async () => {
    const rec = new Recorder();
    const slow = rec.handler('drain.slow', () => new Promise<void>((resolve) => setTimeout(resolve, 5)));
    const handlers: EventHandlersConfig = { RECORD: [[slow, true]] };
    const drains: DrainResult[] = [];
    const onRedis = bullmq('ttl', { ttlMs: 300, batchSize: 5, maxConcurrentDrains: 1 });
    const { bus } = await buses.start(
      { events: TEST_EVENTS, handlers, ...onRedis },
      { onDrain: (result) => drains.push(result) },
    );
    // 200 events of at least 5 ms each take over a second: four or more drains of 300 ms.
    const events = Array.from({ length: 200 }, (_, i) => recordPublished(`r${i}`));
    await bus.publish(events);

    await waitFor(
      'drains to handle all 200 events and the last to expire idle',
      () => drains.reduce((sum, d) => sum + d.handled, 0) === 200 && drains.at(-1)?.backlog === 0,
      { describe: () => drains },
    );

    expect(drains.length).toBeGreaterThanOrEqual(4);
    expect(drains.every((d) => d.reason === 'ttl')).toBe(true);
    const [last, ...earlier] = [...drains].reverse();
    for (const drain of earlier) {
      expect(drain.handled).toBeGreaterThan(0);
      expect(drain.backlog).toBeGreaterThan(0);
    }
    expect(last?.backlog).toBe(0);
    expect(
      rec.notRunOnce(
        'drain.slow',
        events.map((e) => e.id),
      ),
    ).toEqual([]);
    expect(await streamLength(redis, bus.config)).toBe(0);
  });

  it('shares one queue between two worker processes, each event handled exactly once', async () => {
    const name = 'two-procs';
    const countsKey = `{${PREFIX}:${name}}:test:counts`;
    const pidsKey = `{${PREFIX}:${name}}:test:pids`;
    const env = {
      PREFIX,
      BUS_NAME: name,
      COUNTS_KEY: countsKey,
      PIDS_KEY: pidsKey,
      ...redisEnv(),
      MAX_EVENTS: '50',
    };
    const workers = [spawnWorker(env), spawnWorker(env)];
    children.push(...workers);
    await Promise.all(workers.map((w) => w.ready));

    const publisher = buses.create({ events: TEST_EVENTS, ...bullmq(name) });
    const events = Array.from({ length: 2_000 }, (_, i) => RecordEvent.create({ recid: `r${i}` }));
    for (let i = 0; i < events.length; i += 50) await publisher.publish(events.slice(i, i + 50));

    await waitFor(
      'both processes to record 2,000 events',
      async () => (await redis.hlen(countsKey)) === 2_000,
      {
        timeoutMs: 20_000,
        describe: async () => ({ recorded: await redis.hlen(countsKey), pids: await redis.hgetall(pidsKey) }),
      },
    );
    await waitFor('the stream to empty', async () => (await streamLength(redis, publisher.config)) === 0);

    const counts = await redis.hgetall(countsKey);
    expect(Object.keys(counts).sort()).toEqual(events.map((e) => e.id).sort());
    expect(Object.entries(counts).filter(([, n]) => n !== '1')).toEqual([]);
    const perPid = await redis.hgetall(pidsKey);
    expect(Object.keys(perPid).sort()).toEqual(workers.map((w) => String(w.pid)).sort());
    expect(Object.values(perPid).every((n) => Number(n) > 0)).toBe(true);
    expect(Object.values(perPid).reduce((sum, n) => sum + Number(n), 0)).toBe(2_000);

    for (const worker of workers) worker.process.kill('SIGTERM');
    const exits = await Promise.all(workers.map((w) => w.exited));
    expect(exits, workers.map((w) => w.stderr()).join('\n')).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    const names = queueNamesOf(publisher.config);
    expect(await redis.xpending(names.stream, names.group)).toEqual([0, null, null, null]);
  });

  it('on SIGTERM a worker finishes its batch in flight and exits; another worker takes the rest, nothing twice', async () => {
    const name = 'sigterm';
    const countsKey = `{${PREFIX}:${name}}:test:counts`;
    const env = {
      PREFIX,
      BUS_NAME: name,
      COUNTS_KEY: countsKey,
      PIDS_KEY: `{${PREFIX}:${name}}:test:pids`,
      ...redisEnv(),
      MAX_EVENTS: '1000',
      BATCH_SIZE: '10',
      HANDLER_MS: '20',
    };
    const publisher = buses.create({ events: TEST_EVENTS, ...bullmq(name) });
    const events = Array.from({ length: 200 }, (_, i) => RecordEvent.create({ recid: `r${i}` }));
    await publisher.publish(events);

    const first = spawnWorker(env);
    children.push(first);
    await first.ready;
    await waitFor('the first worker to be mid-batch', async () => (await redis.hlen(countsKey)) >= 5);
    first.process.kill('SIGTERM');
    expect(await first.exited, first.stderr()).toEqual({ code: 0, signal: null });

    // It stopped after a whole batch (of 10), leaving nothing claimed and unacknowledged.
    const handledByFirst = await redis.hlen(countsKey);
    expect(handledByFirst % 10).toBe(0);
    expect(handledByFirst).toBeLessThan(200);
    const names = queueNamesOf(publisher.config);
    expect(await redis.xpending(names.stream, names.group)).toEqual([0, null, null, null]);
    expect(await streamLength(redis, publisher.config)).toBe(200 - handledByFirst);

    const second = spawnWorker(env);
    children.push(second);
    await second.ready;
    await waitFor('the second worker to handle the rest', async () => (await redis.hlen(countsKey)) === 200, {
      timeoutMs: 20_000,
    });
    const counts = await redis.hgetall(countsKey);
    expect(Object.entries(counts).filter(([, n]) => n !== '1')).toEqual([]);
    second.process.kill('SIGTERM');
    expect(await second.exited, second.stderr()).toEqual({ code: 0, signal: null });
  });
});
