/**
 * Pausing handlers through the public API, on both transports: a pause set
 * from another bus instance reaches the worker, parks its work (by handler or
 * by handling key, mid sync chain, keeping attempt counts), and resume (or the
 * refresh loop) releases the parked work in order, once each.
 */
import { describe, expect, it } from 'vitest';
import type { EventHandlersConfig } from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import {
  type RecordCreated,
  RecordEmbargoed,
  RecordEvent,
  recordCreated,
  recordPublished,
} from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { TRANSPORT_NAMES } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';
import { asyncRunParked, rulesBed } from './rules-bed.js';

const { redis, startPair, schedulingKeys, parkedInRedis } = rulesBed('rules-pause');

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
    expect(bus.config.scheduling.rulesRefreshMs).toBe(500);

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
      const names = queueNamesOf(bus.config);
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

  it('work parked by a worker with a stale copy after resume is released by the refresh loop', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [rec.handler('stale.mail')] };
    const { bus, admin } = await startPair(transport, 'stale', handlers);
    const event = recordCreated('late');
    // What a worker that had not yet seen the resume would park.
    await admin.transport.rules.park(
      asyncRunParked(admin, event, 'stale.mail', `${event.id}.stale.mail.parked-test`),
    );

    await waitFor('the refresh loop to release it', () => rec.count('stale.mail', event.id) === 1, {
      timeoutMs: 2_000,
    });
    await bus.whenIdle(10_000);
    expect(rec.runs.map((r) => r.eventId)).toEqual([event.id]);
    expect(await admin.rules.parkedCount()).toBe(0);
    if (transport === 'redis') expect(await schedulingKeys(bus)).toEqual([]);
  });
});
