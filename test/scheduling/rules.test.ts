import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve-config.js';
import {
  type CommitbusConfig,
  createEventBus,
  DEFAULT_CONFIG,
  EventBus,
  type EventHandlersConfig,
  loadConfigFromEnv,
  RuleTargetError,
  silentLogger,
} from '../../src/index.js';
import type { ParkedWork } from '../../src/scheduling/parked-work.js';
import { queueNames } from '../../src/transports/redis/index.js';
import { fastConfig } from '../helpers/buses.js';
import {
  type RecordCreated,
  RecordEmbargoed,
  RecordEvent,
  recordCreated,
  recordPublished,
  TEST_EVENTS,
} from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { scanKeys } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, type TransportName, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('rules');

/** A worker bus, and a second bus instance on the same rules: what another process sees and sets. */
interface Pair {
  readonly bus: EventBus;
  readonly admin: EventBus;
}

// One handler job at a time: released work then runs strictly in the order it was parked
// (with more, runs start in that order but may overlap).
function config(transport: TransportName, name: string, overrides: Partial<CommitbusConfig> = {}) {
  return {
    config: fastConfig({ prefix: PREFIX, name, asyncConcurrency: 1, ...overrides }),
    transport: testTransport(transport),
  };
}

async function startPair(
  transport: TransportName,
  name: string,
  handlers: EventHandlersConfig,
  overrides: Partial<CommitbusConfig> = {},
): Promise<Pair> {
  const options = { events: TEST_EVENTS, handlers, ...config(transport, name, overrides) };
  const { bus } = await buses.start(options);
  // On memory, "another process" is a second bus on the same transport; on bullmq, a second
  // bus on the same prefix and name, with its own connections.
  const admin =
    transport === 'memory'
      ? new EventBus({ ...options, logger: silentLogger }, bus.transport)
      : buses.create(options);
  return { bus, admin };
}

/** The scheduling keys a bullmq bus left in Redis (rules, parked work, counters), sorted. */
async function schedulingKeys(bus: EventBus): Promise<string[]> {
  const names = queueNames(bus.config);
  const found = (await redis.exists(names.rules)) ? [names.rules] : [];
  for (const key of [names.parkedHandlers, names.dropped]) if (await redis.exists(key)) found.push(key);
  found.push(...(await scanKeys(redis, `${names.parked}:*`)));
  return found.sort();
}

/** The work parked for `handler` on a bullmq bus, oldest first, as stored. */
async function parkedInRedis(bus: EventBus, handler: string): Promise<ParkedWork[]> {
  const items = await redis.lrange(`${queueNames(bus.config).parked}:${handler}`, 0, -1);
  return items.map((item) => JSON.parse(item) as ParkedWork);
}

describe.each(TRANSPORT_NAMES)('scheduling rules on %s', (transport) => {
  it('a pause set from another bus instance reaches the worker within 1 s; resume delivers the parked work in publish order, once each', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('pause.audit'), true],
        rec.handler('pause.mail'),
        rec.handler('pause.search'),
      ],
    };
    const { bus, admin } = await startPair(transport, 'pause', handlers);
    expect(bus.config.rulesRefreshMs).toBe(500);

    expect(await admin.rules.pause({ handler: 'pause.mail' })).toBe(true);
    expect(await admin.rules.pause({ handler: 'pause.mail' })).toBe(false);
    // Probes go out every 50 ms until the worker parks one instead of running it.
    const probes: RecordCreated[] = [];
    await waitFor(
      'the worker to honour the pause',
      async () => {
        const probe = recordCreated(`probe${probes.length}`);
        probes.push(probe);
        await bus.publish(probe);
        return (await admin.rules.parkedCount('pause.mail')) > 0;
      },
      { timeoutMs: 1_000, intervalMs: 50 },
    );
    const paused = Array.from({ length: 10 }, (_, i) => recordCreated(`r${i}`));
    await bus.publish(paused);
    // Parked work is idle: nothing can run it.
    await bus.whenIdle(10_000);

    const probesParked = probes.filter((p) => rec.count('pause.mail', p.id) === 0);
    const parkedIds = [...probesParked, ...paused].map((e) => e.id);
    for (const id of parkedIds) expect(rec.count('pause.mail', id)).toBe(0);
    const all = [...probes, ...paused].map((e) => e.id);
    expect(rec.notRunOnce('pause.audit', all)).toEqual([]);
    expect(rec.notRunOnce('pause.search', all)).toEqual([]);
    expect(await admin.rules.parkedCount('pause.mail')).toBe(parkedIds.length);
    expect(await admin.rules.parkedCount()).toBe(parkedIds.length);
    expect(await admin.rules.list()).toEqual([
      { kind: 'pause', target: { handler: 'pause.mail' }, since: expect.any(Date) },
    ]);
    if (transport === 'redis') {
      const names = queueNames(bus.config);
      expect(await redis.smembers(names.parkedHandlers)).toEqual(['pause.mail']);
      expect((await parkedInRedis(bus, 'pause.mail')).map((w) => w.job.payload)).toHaveLength(
        parkedIds.length,
      );
    }

    expect(await admin.rules.resume({ handler: 'pause.mail' })).toBe(true);
    await waitFor('the parked work to run', () => parkedIds.every((id) => rec.count('pause.mail', id) === 1));
    await bus.whenIdle(10_000);

    expect(rec.notRunOnce('pause.mail', all)).toEqual([]);
    const resumed = rec.runs.filter((r) => r.handler === 'pause.mail' && parkedIds.includes(r.eventId));
    expect(resumed.map((r) => r.eventId)).toEqual(parkedIds);
    expect(resumed.every((r) => r.attempt === 1)).toBe(true);
    expect(await admin.rules.parkedCount()).toBe(0);
    expect(await admin.rules.list()).toEqual([]);
    expect(await admin.rules.resume({ handler: 'pause.mail' })).toBe(false);
    if (transport === 'redis') expect(await schedulingKeys(bus)).toEqual([]);
  });

  it('a pause by handling key holds every handler of events with that key or one below it', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      RECORD: [[rec.handler('key.audit'), true]],
      'RECORD.CREATE': [rec.handler('key.welcome')],
      'RECORD.PUBLISH': [[rec.handler('key.notify'), true], rec.handler('key.index')],
    };
    const { bus, admin } = await startPair(transport, 'by-key', handlers);
    await bus.rules.pause({ handlingKey: 'RECORD.PUBLISH' });
    const root = RecordEvent.create({ recid: 'root' });
    const created = recordCreated('created');
    const held = [
      recordPublished('p1'),
      RecordEmbargoed.create({ recid: 'e1', publishedAt: new Date(), embargoUntil: new Date() }),
      recordPublished('p2'),
    ];
    await bus.publish([root, created, ...held]);
    await bus.whenIdle(10_000);

    expect(rec.order(root.id)).toEqual(['key.audit']);
    expect(rec.order(created.id).sort()).toEqual(['key.audit', 'key.welcome']);
    for (const event of held) expect(rec.order(event.id)).toEqual([]);
    // The sync chain waits from its first handler; the async handler waits on its own.
    expect(await bus.rules.parkedCount('key.audit')).toBe(3);
    expect(await bus.rules.parkedCount('key.index')).toBe(3);

    await admin.rules.resume({ handlingKey: 'RECORD.PUBLISH' });
    await waitFor('the held events to run', () => held.every((e) => rec.order(e.id).length === 3));
    await bus.whenIdle(10_000);

    for (const event of held) {
      expect(rec.order(event.id, ['key.audit', 'key.notify'])).toEqual(['key.audit', 'key.notify']);
      expect(rec.count('key.index', event.id)).toBe(1);
    }
    const audits = rec.runs.filter((r) => r.handler === 'key.audit').map((r) => r.eventId);
    expect(audits).toEqual([root.id, created.id, ...held.map((e) => e.id)]);
    expect(rec.runs).toHaveLength(1 + 2 + 3 * 3);
    expect(await bus.rules.parkedCount()).toBe(0);
    if (transport === 'redis') expect(await schedulingKeys(bus)).toEqual([]);
  });

  it('a paused sync handler mid-chain: those before it run once, it and those after it wait, async handlers go on', async () => {
    const rec = new Recorder();
    const chain = ['chain.first', 'chain.paused', 'chain.last'];
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('chain.first'), true],
        { handler: rec.handler('chain.paused'), sync: true, attempts: 2 },
        [rec.handler('chain.last'), true],
        rec.handler('chain.async'),
      ],
    };
    const { bus, admin } = await startPair(transport, 'chain', handlers);
    await bus.rules.pause({ handler: 'chain.paused' });
    const events = Array.from({ length: 5 }, (_, i) => recordCreated(`c${i}`));
    const ids = events.map((e) => e.id);
    await bus.publish(events);
    await bus.whenIdle(10_000);

    expect(rec.notRunOnce('chain.first', ids)).toEqual([]);
    expect(rec.notRunOnce('chain.async', ids)).toEqual([]);
    expect(rec.count('chain.paused') + rec.count('chain.last')).toBe(0);
    expect(await bus.rules.parkedCount('chain.paused')).toBe(5);
    if (transport === 'redis') {
      const parked = await parkedInRedis(bus, 'chain.paused');
      expect(parked.map((w) => [w.job.kind, w.job.handler, w.job.attempts, w.job.firstAttempt])).toEqual(
        Array(5).fill(['retry', 'chain.paused', 2, 1]),
      );
    }

    await admin.rules.resume({ handler: 'chain.paused' });
    await waitFor('the rest of each chain', () => rec.count('chain.last') === 5);
    await bus.whenIdle(10_000);

    for (const id of ids) expect(rec.order(id, chain)).toEqual(chain);
    expect(rec.notRunOnce('chain.first', ids)).toEqual([]);
    const resumed = rec.runs.filter((r) => r.handler === 'chain.paused');
    expect(resumed.map((r) => r.eventId)).toEqual(ids);
    expect(resumed.map((r) => r.attempt)).toEqual([1, 1, 1, 1, 1]);
    expect(await bus.deadLetters.list()).toEqual([]);
    if (transport === 'redis') expect(await schedulingKeys(bus)).toEqual([]);
  });

  it('parked work keeps its attempt count: released, it runs the attempts that were left', async () => {
    const rec = new Recorder();
    let pauseItself: () => Promise<unknown> = async () => {};
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          // Pauses itself on its first run, then fails: its retry finds it paused.
          handler: rec.handler('count.async', async (_e, ctx) => {
            if (ctx.attempt > 1) return;
            await pauseItself();
            throw new Error('first run fails');
          }),
          attempts: 3,
        },
        {
          handler: rec.handler('count.sync', () => {
            throw new Error('always fails');
          }),
          sync: true,
          attempts: 2,
        },
      ],
    };
    const { bus, admin } = await startPair(transport, 'attempts', handlers);
    pauseItself = () => bus.rules.pause({ handler: 'count.async' });
    await bus.rules.pause({ handler: 'count.sync' });
    const event = recordCreated('counted');
    await bus.publish(event);
    await waitFor('both handlers to be parked', async () => (await bus.rules.parkedCount()) === 2);
    expect(rec.runs.map((r) => `${r.handler}#${r.attempt}`)).toEqual(['count.async#1']);

    await admin.rules.resume({ handler: 'count.async' });
    await admin.rules.resume({ handler: 'count.sync' });
    await waitFor(
      'the sync handler to be dead-lettered',
      async () => (await bus.deadLetters.list()).length === 1,
    );
    await bus.whenIdle(10_000);

    expect(rec.runs.filter((r) => r.handler === 'count.async').map((r) => r.attempt)).toEqual([1, 2]);
    expect(rec.runs.filter((r) => r.handler === 'count.sync').map((r) => r.attempt)).toEqual([1, 2]);
    const letters = await bus.deadLetters.list();
    expect(letters).toEqual([
      expect.objectContaining({
        kind: 'handler',
        handler: 'count.sync',
        eventId: event.id,
        reason: 'exhausted',
      }),
    ]);
    expect(letters[0]?.attempts.map((a) => a.attempt)).toEqual([1, 2]);
  });

  it('a block drops and counts the work of a sync and an async handler; unblock restores them', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('block.first'), true],
        [rec.handler('block.sync'), true],
        [rec.handler('block.last'), true],
        rec.handler('block.async'),
      ],
    };
    const { bus, admin } = await startPair(transport, 'block', handlers);
    await bus.rules.block({ handler: 'block.sync' });
    await bus.rules.block({ handler: 'block.async' });
    const blocked = Array.from({ length: 4 }, (_, i) => recordCreated(`b${i}`));
    await bus.publish(blocked);
    await bus.whenIdle(10_000);

    for (const event of blocked) expect(rec.order(event.id)).toEqual(['block.first', 'block.last']);
    expect(await admin.rules.blockedCount('block.sync')).toBe(4);
    expect(await admin.rules.blockedCount('block.async')).toBe(4);
    expect(await admin.rules.blockedCount()).toBe(8);
    expect(await admin.rules.parkedCount()).toBe(0);
    // Set one after the other, maybe in one millisecond (then listed by id: the conformance suite).
    const inForce = (await admin.rules.list()).map((r) => [r.kind, r.target]);
    expect(inForce).toHaveLength(2);
    expect(inForce).toEqual(
      expect.arrayContaining([
        ['block', { handler: 'block.sync' }],
        ['block', { handler: 'block.async' }],
      ]),
    );
    if (transport === 'redis') {
      const names = queueNames(bus.config);
      expect(await redis.hgetall(names.dropped)).toEqual({ 'block.sync': '4', 'block.async': '4' });
    }

    expect(await bus.rules.unblock({ handler: 'block.sync' })).toBe(true);
    expect(await bus.rules.unblock({ handler: 'block.async' })).toBe(true);
    const after = [recordCreated('after1'), recordCreated('after2')];
    await bus.publish(after);
    await waitFor('the events after the unblock', () => rec.count('block.async') === 2);
    await bus.whenIdle(10_000);

    for (const event of after) {
      expect(rec.order(event.id, ['block.first', 'block.sync', 'block.last'])).toEqual([
        'block.first',
        'block.sync',
        'block.last',
      ]);
    }
    // Dropped work stays dropped.
    expect(
      rec.notRunOnce(
        'block.sync',
        after.map((e) => e.id),
      ),
    ).toEqual([]);
    expect(
      rec.notRunOnce(
        'block.async',
        after.map((e) => e.id),
      ),
    ).toEqual([]);
    expect(await admin.rules.blockedCount()).toBe(8);
    expect(await admin.rules.list()).toEqual([]);
    if (transport === 'redis') expect(await schedulingKeys(bus)).toEqual([queueNames(bus.config).dropped]);
  });

  it('a block wins over a pause, and work parked before the block waits until both are lifted', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [rec.handler('both.mail')] };
    const { bus } = await startPair(transport, 'both', handlers);
    await bus.rules.pause({ handler: 'both.mail' });
    const parked = recordCreated('parked');
    await bus.publish(parked);
    await waitFor('the first event to be parked', async () => (await bus.rules.parkedCount()) === 1);
    await bus.rules.block({ handlingKey: 'RECORD' });
    const dropped = recordCreated('dropped');
    await bus.publish(dropped);
    await waitFor('the second event to be dropped', async () => (await bus.rules.blockedCount()) === 1);

    await bus.rules.resume({ handler: 'both.mail' });
    await bus.whenIdle(10_000);
    expect(rec.runs).toEqual([]);
    expect(await bus.rules.parkedCount('both.mail')).toBe(1);

    await bus.rules.unblock({ handlingKey: 'RECORD' });
    await waitFor('the parked event to run', () => rec.count('both.mail', parked.id) === 1);
    await bus.whenIdle(10_000);
    expect(rec.runs.map((r) => r.eventId)).toEqual([parked.id]);
    expect(await bus.rules.blockedCount('both.mail')).toBe(1);
  });

  it('work parked by a worker with a stale copy after resume is released by the refresh loop', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [rec.handler('stale.mail')] };
    const { bus, admin } = await startPair(transport, 'stale', handlers);
    const event = recordCreated('late');
    // What a worker that had not yet seen the resume would park.
    await admin.transport.rules.park({
      job: {
        kind: 'async',
        jobId: `${event.id}.stale.mail.parked-test`,
        payload: admin.serializer.serialize(event).payload,
        handler: 'stale.mail',
        attempts: 1,
        backoff: { type: 'fixed', delayMs: 0 },
        delayMs: 0,
        firstAttempt: 1,
      },
      handlingKey: event.handlingKey,
      parkedAt: Date.now(),
    });

    await waitFor('the refresh loop to release it', () => rec.count('stale.mail', event.id) === 1, {
      timeoutMs: 2_000,
    });
    await bus.whenIdle(10_000);
    expect(rec.runs.map((r) => r.eventId)).toEqual([event.id]);
    expect(await admin.rules.parkedCount()).toBe(0);
    if (transport === 'redis') expect(await schedulingKeys(bus)).toEqual([]);
  });
});

describe('scheduling rules on bullmq: across processes and restarts', () => {
  it('rules and parked work survive a worker restart', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [[rec.handler('restart.save'), true]] };
    const options = { events: TEST_EVENTS, handlers, ...config('redis', 'restart') };
    const first = await buses.start(options);
    await first.bus.rules.pause({ handler: 'restart.save' });
    const before = [recordCreated('before1'), recordCreated('before2')];
    await first.bus.publish(before);
    await first.bus.whenIdle(10_000);
    await first.bus.close();

    const { bus } = await buses.start(options);
    expect((await bus.rules.list()).map((r) => r.kind)).toEqual(['pause']);
    const after = recordCreated('after');
    await bus.publish(after);
    await bus.whenIdle(10_000);
    expect(rec.runs).toEqual([]);
    expect(await bus.rules.parkedCount('restart.save')).toBe(3);

    await bus.rules.resume({ handler: 'restart.save' });
    await waitFor('the parked work to run', () => rec.count('restart.save') === 3);
    expect(rec.runs.map((r) => r.eventId)).toEqual([...before, after].map((e) => e.id));
    await bus.whenIdle(10_000);
    expect(await schedulingKeys(bus)).toEqual([]);
  });

  it('two workers honour a pause and release the parked work once between them', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [rec.handler('two.mail')] };
    const options = { events: TEST_EVENTS, handlers, ...config('redis', 'two-workers') };
    const admin = buses.create(options);
    await admin.rules.pause({ handler: 'two.mail' });
    await buses.start(options);
    await buses.start(options);
    const events = Array.from({ length: 200 }, (_, i) => recordCreated(`w${i}`));
    await admin.publish(events);
    await waitFor('every event to be parked', async () => (await admin.rules.parkedCount()) === 200);
    await admin.whenIdle(10_000);
    expect(rec.runs).toEqual([]);

    // Both workers' refresh loops race the resume to release the same list.
    await admin.rules.resume({ handler: 'two.mail' });
    await waitFor('the parked work to run', () => rec.count('two.mail') >= 200);
    await admin.whenIdle(10_000);
    expect(
      rec.notRunOnce(
        'two.mail',
        events.map((e) => e.id),
      ),
    ).toEqual([]);
    expect(await schedulingKeys(admin)).toEqual([]);
  });
});

describe('scheduling rule targets and config', () => {
  const handlers: EventHandlersConfig = {
    RECORD: [[new Recorder().handler('target.audit'), true]],
    'RECORD.PUBLISH': [new Recorder().handler('target.index')],
  };

  it('names the known handlers or keys when a target is unknown or malformed', async () => {
    const bus = buses.create({ events: TEST_EVENTS, handlers, ...config('memory', 'targets') });
    const rejection = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.unreachable(),
        (e: unknown) => e,
      );

    const unknownHandler = await rejection(bus.rules.pause({ handler: 'target.idx' }));
    expect(unknownHandler).toBeInstanceOf(RuleTargetError);
    expect(unknownHandler).toMatchObject({
      code: 'COMMITBUS_RULE_TARGET',
      message:
        'no handler named "target.idx" in EVENT_HANDLERS (known: target.audit, target.index); name one of those handlers',
    });
    await expect(bus.rules.block({ handlingKey: 'RECORD.PUBLSH' })).rejects.toThrow(
      'no registered event has the handling key "RECORD.PUBLSH" or one below it (known: RECORD, RECORD.CREATE, RECORD.PUBLISH, RECORD.PUBLISH.EMBARGOED)',
    );
    await expect(
      bus.rules.pause({ handler: 'target.audit', handlingKey: 'RECORD' } as unknown as { handler: string }),
    ).rejects.toThrow(RuleTargetError);
    await expect(bus.rules.pause({} as { handler: string })).rejects.toThrow(
      "a rule target is { handler: 'name' } or { handlingKey: 'KEY' }, got {}",
    );
    await expect(bus.rules.blockedCount('nope')).rejects.toThrow(RuleTargetError);
    expect(await bus.rules.list()).toEqual([]);
    // A key with no handler of its own is still a key events have.
    expect(await bus.rules.pause({ handlingKey: 'RECORD.PUBLISH.EMBARGOED' })).toBe(true);
  });

  it('rulesRefreshMs defaults to 500, reads COMMITBUS_RULES_REFRESH_MS and must be positive', () => {
    expect(DEFAULT_CONFIG.scheduling.rulesRefreshMs).toBe(500);
    expect(loadConfigFromEnv({ COMMITBUS_RULES_REFRESH_MS: '250' }).scheduling.rulesRefreshMs).toBe(250);
    expect(() => resolveConfig({ rulesRefreshMs: 0 })).toThrow(
      'rulesRefreshMs must be a positive integer, got 0',
    );
    expect(() => createEventBus({ events: [], config: { rulesRefreshMs: 1.5 } })).toThrow(/rulesRefreshMs/);
  });
});
