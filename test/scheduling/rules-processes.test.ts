/**
 * Scheduling rules on bullmq across processes and restarts: rules and parked
 * work outlive a worker, and two workers release parked work once between them.
 */
import { describe, expect, it } from 'vitest';
import type { EventHandlersConfig } from '../../src/index.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { waitFor } from '../helpers/wait-for.js';
import { rulesBed } from './rules-bed.js';

const { buses, config, schedulingKeys } = rulesBed('rules-processes');

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
