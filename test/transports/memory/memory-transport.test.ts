import { afterEach, describe, expect, it } from 'vitest';
import type { CommitbusOptions, DrainResult, EventHandlersConfig } from '../../../src/index.js';
import { MemoryTransport } from '../../../src/transports/memory/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
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
import { waitFor } from '../../helpers/wait-for.js';

const buses = new Buses();
afterEach(() => buses.closeAll());

function memory(overrides: CommitbusOptions = {}): CommitbusOptions {
  return fastConfig({ ...overrides });
}

describe('memory transport', () => {
  it('runs the handlers of A, then A.B, then A.B.C, each key in configured order', async () => {
    const rec = new Recorder();
    const decoded: string[] = [];
    const handlers = hierarchyHandlers(rec, decoded);
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, config: memory() });
    expect(bus.transport).toBeInstanceOf(MemoryTransport);
    const events = hierarchyEvents();
    await bus.publish(Object.values(events));

    await waitFor('every handler of the four events', async () => {
      return rec.runs.length === HIERARCHY_RUNS && (await bus.backlog()) === 0;
    });

    expectHierarchicalOrder(rec, events, decoded);
  });

  it('runs sync entries in order inside the drain and async entries beside it, each once', async () => {
    const rec = new Recorder();
    const [first, second] = [recordCreated('first'), recordCreated('second')];
    let secondSynced: () => void = () => {};
    const secondSyncRan = new Promise<void>((resolve) => {
      secondSynced = resolve;
    });
    // The first event's async handler waits for the second event's sync chain: were async
    // handlers run inline, the drain would never reach the second event.
    const waitsForSecond = rec.handler('form.bare', (e) => (e.id === first.id ? secondSyncRan : undefined));
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('form.tuple-sync'), true],
        waitsForSecond,
        [rec.handler('form.tuple-async'), false],
        {
          handler: rec.handler('form.object-sync', (e) => (e.id === second.id ? secondSynced() : undefined)),
          sync: true,
        },
        { handler: rec.handler('form.object-async'), sync: false },
        { handler: rec.handler('form.object-default') },
      ],
    };
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, config: memory() });
    await bus.publish([first, second]);

    const asyncNames = ['form.bare', 'form.tuple-async', 'form.object-async', 'form.object-default'];
    await waitFor('every handler of both events', async () => {
      return asyncNames.every((h) => rec.count(h) === 2) && (await bus.backlog()) === 0;
    });

    const syncNames = ['form.tuple-sync', 'form.object-sync'];
    expect(
      rec.runs.filter((r) => syncNames.includes(r.handler)).map((r) => `${r.handler}@${r.eventId}`),
    ).toEqual([
      `form.tuple-sync@${first.id}`,
      `form.object-sync@${first.id}`,
      `form.tuple-sync@${second.id}`,
      `form.object-sync@${second.id}`,
    ]);
    for (const handler of [...syncNames, ...asyncNames]) {
      expect([rec.count(handler, first.id), rec.count(handler, second.id)]).toEqual([1, 1]);
    }
    expect(await bus.deadLetters.list()).toEqual([]);
  });

  it('retries failing handlers up to their attempts and dead-letters what never succeeds', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          handler: rec.handler('retry.flaky', (_e, ctx) => {
            if (ctx.attempt < 3) throw new Error(`flaky on attempt ${ctx.attempt}`);
          }),
          sync: true,
          attempts: 3,
        },
        [rec.handler('retry.after'), true],
      ],
      'RECORD.PUBLISH': [
        {
          handler: rec.handler<RecordPublished>('retry.poison', (e) => {
            if (e.recid === 'bad') throw new Error('record bad is poisoned');
          }),
          sync: true,
          attempts: 2,
        },
        [rec.handler('retry.poison-after'), true],
        {
          handler: rec.handler('retry.async-broken', () => {
            throw new Error('mailer down');
          }),
          attempts: 3,
        },
      ],
    };
    const { bus } = await buses.start({ events: TEST_EVENTS, handlers, config: memory() });
    const flaky: RecordCreated = recordCreated('flaky');
    const [bad, good] = [recordPublished('bad'), recordPublished('good')];
    await bus.publish([flaky, bad, good]);

    await waitFor(
      'the sync and two async handlers to be dead-lettered',
      async () => (await bus.deadLetters.list()).length === 3,
      { describe: () => rec.runs },
    );
    await waitFor('the flaky chain to finish', () => rec.count('retry.after') === 1);
    await bus.whenIdle();

    expect(rec.order(flaky.id)).toEqual(['retry.flaky', 'retry.flaky', 'retry.flaky', 'retry.after']);
    expect(rec.runs.filter((r) => r.handler === 'retry.flaky').map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(rec.order(good.id, ['retry.poison', 'retry.poison-after'])).toEqual([
      'retry.poison',
      'retry.poison-after',
    ]);
    // Given up after its second attempt, the poisoned handler lets the rest of its chain run.
    expect(rec.order(bad.id, ['retry.poison', 'retry.poison-after'])).toEqual([
      'retry.poison',
      'retry.poison',
      'retry.poison-after',
    ]);
    const letters = await bus.deadLetters.list();
    expect(letters.find((l) => l.handler === 'retry.poison')).toMatchObject({
      id: `${bad.id}.retry.poison`,
      kind: 'handler',
      eventId: bad.id,
      handlingKey: 'RECORD.PUBLISH',
      reason: 'exhausted',
      error: 'record bad is poisoned',
    });
    for (const event of [bad, good]) {
      const letter = letters.find((l) => l.handler === 'retry.async-broken' && l.eventId === event.id);
      expect(letter).toMatchObject({
        id: `${event.id}.retry.async-broken`,
        reason: 'exhausted',
        error: 'mailer down',
      });
      expect(letter?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      expect(rec.count('retry.async-broken', event.id)).toBe(3);
    }
  });

  it('stops a drain at maxEvents and lets its successor take the rest', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { RECORD: [[rec.handler('drain.count'), true]] };
    const drains: DrainResult[] = [];
    const { bus } = await buses.start(
      { events: TEST_EVENTS, handlers, config: memory({ maxEvents: 10, maxConcurrentDrains: 1 }) },
      { onDrain: (result) => drains.push(result) },
    );
    const events = Array.from({ length: 35 }, (_, i) => recordCreated(`r${i}`));
    await bus.publish(events);

    await waitFor('35 events and three full drains', async () => {
      return rec.count('drain.count') === 35 && (await bus.backlog()) === 0 && drains.length >= 3;
    });

    expect(drains.map(({ handled, reason, backlog }) => ({ handled, reason, backlog }))).toEqual([
      { handled: 10, reason: 'maxEvents', backlog: 25 },
      { handled: 10, reason: 'maxEvents', backlog: 15 },
      { handled: 10, reason: 'maxEvents', backlog: 5 },
    ]);
    expect((bus.transport as MemoryTransport).drainsStarted).toBe(4);
    expect(rec.runs.map((r) => r.eventId)).toEqual(events.map((e) => e.id));
  });
});
