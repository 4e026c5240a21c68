/**
 * The audit trail of operator actions (`bus.audit`): rule changes,
 * dead-letter re-drives and purges, ordering actions and an event store's
 * actions on the bus are recorded with who asked, from where, what and how
 * many, newest first; by default from the `api` and this process's
 * `user@host`. A record the trail cannot store never fails the action: it is
 * logged with its code. On the embedded SQLite (the port itself:
 * test/conformance/operator-action-log.conformance.test.ts; from the CLI:
 * test/cli/audit.test.ts; from the dashboard: test/dashboard/audit.test.ts).
 */
import { hostname, userInfo } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/bus/transport.js';
import {
  type DeadLetterKind,
  defineHandler,
  defineModel,
  type EventHandlersConfig,
  type StoreEvent,
  type TransportAdapter,
} from '../../src/index.js';
import { AUDIT_APPEND_FAILED } from '../../src/support/operator-audit.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { letter } from '../conformance/dead-letter-store/letters.js';
import { ItemEntity, items } from '../fixtures/es-items.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { StoreBed } from '../helpers/event-store-bed.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { waitFor } from '../helpers/wait-for.js';

const buses = new Buses();
afterEach(() => buses.closeAll());

const ME = `${userInfo().username}@${hostname()}`;
const CONFIG = fastConfig({ name: 'audit' });

const failing: EventHandlersConfig = {
  'RECORD.CREATE': [
    {
      handler: defineHandler('fails', async () => {
        throw new Error('down');
      }),
      attempts: 1,
    },
  ],
};

/** The embedded adapter with an audit trail that cannot store anything. */
function brokenTrail(): TransportAdapter {
  const inner = sqliteTransport({ pollMs: 20 });
  return {
    name: 'broken-trail',
    open: (context): Transport => {
      const t = inner.open(context);
      return Object.assign(Object.create(t) as Transport, {
        audit: {
          append: () => Promise.reject(new Error('the trail is full of sand')),
          list: () => t.audit.list(),
          count: () => t.audit.count(),
        },
      });
    },
  };
}

describe('bus.audit', () => {
  it('records rule changes with their count, from the api and user@host by default', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers: failing,
      config: CONFIG,
      transport: sqliteTransport(),
    });
    expect(await bus.rules.pause({ handler: 'fails' })).toBe(true);
    expect(await bus.rules.pause({ handler: 'fails' }, { source: 'cli', actor: 'ann@ops-1' })).toBe(false);
    await bus.rules.block({ handlingKey: 'RECORD' }, { source: 'dashboard', actor: 'bob' });
    const actions = await bus.audit.list();
    expect(
      actions.map(({ action, target, count, source, actor }) => ({ action, target, count, source, actor })),
    ).toEqual([
      { action: 'rules.block', target: 'key:RECORD', count: 1, source: 'dashboard', actor: 'bob' },
      { action: 'rules.pause', target: 'handler:fails', count: 0, source: 'cli', actor: 'ann@ops-1' },
      { action: 'rules.pause', target: 'handler:fails', count: 1, source: 'api', actor: ME },
    ]);
    expect(await bus.audit.count()).toBe(3);
    expect((await bus.audit.list({ limit: 1, before: actions[0]?.id })).map((a) => a.count)).toEqual([0]);
  });

  it('records a re-drive and a purge of dead letters with how many, and an ordering action that found nothing', async () => {
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: failing,
      config: CONFIG,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    await bus.publish([recordCreated('a'), recordCreated('b')]);
    await waitFor('two dead letters', async () => (await bus.deadLetters.list()).length === 2);
    const redriven = await bus.deadLetters.redrive(
      { handler: 'fails' },
      { source: 'cli', actor: 'ann@ops-1' },
    );
    expect(redriven).toBe(2);
    await waitFor('two dead letters again', async () => (await bus.deadLetters.list()).length === 2);
    expect(await bus.deadLetters.purge('all')).toBe(2);
    expect(await bus.ordering.skip('NO-SUCH-KEY', { actor: 'carol' })).toBe(0);
    const actions = await bus.audit.list();
    expect(
      actions.map(({ action, target, count, source, actor }) => ({ action, target, count, source, actor })),
    ).toEqual([
      { action: 'ordering.skip', target: 'NO-SUCH-KEY', count: 0, source: 'api', actor: 'carol' },
      { action: 'dead-letters.purge', target: 'all', count: 2, source: 'api', actor: ME },
      {
        action: 'dead-letters.redrive',
        target: '{"handler":"fails"}',
        count: 2,
        source: 'cli',
        actor: 'ann@ops-1',
      },
    ]);
  });

  it('records a re-drive that failed part-way with the letters it re-drove, and throws the failure', async () => {
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: failing,
      config: CONFIG,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    await bus.publish([recordCreated('a'), recordCreated('b')]);
    await waitFor('two dead letters', async () => (await bus.deadLetters.list()).length === 2);
    // A kind whose run fails, beside the handler letters that re-drive.
    bus.deadLetters.kinds.register('chaos', {
      prepare: (letter) => letter,
      run: () => Promise.reject(new Error('the chaos redriver is down')),
    });
    await bus.transport.deadLetters.add([
      letter('e1.chaos', 1, { kind: 'chaos' as DeadLetterKind, handler: undefined }),
    ]);
    await expect(bus.deadLetters.redrive('all')).rejects.toThrow('the chaos redriver is down');
    const [action] = await bus.audit.list();
    expect(action).toMatchObject({ action: 'dead-letters.redrive', target: 'all', count: 2 });
    expect((await bus.deadLetters.list()).map((l) => l.id)).toContain('e1.chaos');
  });

  it('cuts an actor longer than a store keeps (255 characters) rather than losing the record', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers: failing,
      config: CONFIG,
      transport: sqliteTransport(),
    });
    // An emoji (two UTF-16 units) across the cut: it is not split in half.
    const actor = `${'a'.repeat(253)}🙂${'b'.repeat(800)}`;
    await bus.rules.pause({ handler: 'fails' }, { actor });
    const [stored] = await bus.audit.list();
    expect(stored?.actor).toBe(`${'a'.repeat(253)}…`);
    await bus.rules.resume({ handler: 'fails' }, { actor: `${'c'.repeat(300)}` });
    expect((await bus.audit.list())[0]?.actor).toBe(`${'c'.repeat(254)}…`);
  });

  it('does not record an action refused before it changed anything', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers: failing,
      config: CONFIG,
      transport: sqliteTransport(),
    });
    await expect(bus.rules.pause({ handler: 'nobody' })).rejects.toMatchObject({ code: expect.any(String) });
    await expect(bus.ordering.rebase('K', { position: 0 })).rejects.toMatchObject({
      code: 'COMMITBUS_ORDERING_REBASE',
    });
    expect(await bus.audit.list()).toEqual([]);
  });

  it('does the action and logs a record the trail cannot store, with its code', async () => {
    const logger = recordingLogger();
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers: failing,
      config: CONFIG,
      transport: brokenTrail(),
      logger,
    });
    expect(await bus.rules.pause({ handler: 'fails' }, { source: 'cli', actor: 'ann' })).toBe(true);
    expect((await bus.rules.list()).map((r) => r.kind)).toEqual(['pause']);
    const [line] = logger.at('warn');
    expect(line?.fields).toMatchObject({
      code: AUDIT_APPEND_FAILED,
      action: 'rules.pause',
      target: 'handler:fails',
      actor: 'ann',
      source: 'cli',
    });
    expect(await bus.audit.list()).toEqual([]);
  });
});

describe("bus.audit and an event store's operator actions", () => {
  const bed = new StoreBed('sqlite', 'unused');
  beforeEach(() => bed.open());
  afterEach(() => bed.close());

  it('records a skip of a store on the bus with who asked and from where', async () => {
    const broken = defineModel({
      name: 'broken',
      entity: ItemEntity,
      reducers: {
        'ITEM.BAD': (_event: StoreEvent) => {
          throw new Error('cannot reduce');
        },
      },
    });
    const { bus } = await bed.bus([...TEST_EVENTS]);
    const store = await bed.start({
      models: [items, broken],
      bus,
      retryDelayMs: 60_000,
      maxRetryDelayMs: 60_000,
    });
    await store.dispatch('ITEM.BAD', { x: 1 }, { wait: false });
    await waitFor('the halt', async () => (await store.halted()) !== undefined);
    await store.skip(1, { by: 'ann@ops-1', reason: 'bad data', source: 'cli' });
    const [action] = await bus.audit.list();
    expect(action).toMatchObject({
      action: 'event-store.skip',
      target: 'v1',
      count: 1,
      source: 'cli',
      actor: 'ann@ops-1',
    });
  });
});
