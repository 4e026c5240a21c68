/**
 * Blocking handlers through the public API, on both transports: a block drops
 * and counts their work until unblocked, and wins over a pause.
 */
import { describe, expect, it } from 'vitest';
import type { EventHandlersConfig } from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { recordCreated } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { TRANSPORT_NAMES } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';
import { rulesBed } from './rules-bed.js';

const { redis, startPair, schedulingKeys } = rulesBed('rules-block');

describe.each(TRANSPORT_NAMES)('scheduling rules on %s', (transport) => {
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
      const names = queueNamesOf(bus.config);
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
    if (transport === 'redis') expect(await schedulingKeys(bus)).toEqual([queueNamesOf(bus.config).dropped]);
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
});
