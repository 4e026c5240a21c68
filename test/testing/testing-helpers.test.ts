import { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  COMMITBUS_ENTITIES,
  defineHandler,
  type HandlerContext,
  SendEventOp,
  type UnitOfWork,
  UnitOfWorkManager,
  unitOfWork,
} from '../../src/index.js';
import { createTestBus, type TestEventBus } from '../../src/testing/index.js';
import { RecordCreated, RecordRow, RecordUpdated } from '../helpers/records.js';
import { waitFor } from '../helpers/wait-for.js';

/** The kind of service an application writes: it publishes only once its transaction commits. */
class RecordService {
  constructor(readonly unitOfWorks: UnitOfWorkManager) {}

  @unitOfWork()
  async create(recid: string, uow?: UnitOfWork): Promise<RecordCreated> {
    await uow!.manager.insert(RecordRow, { recid });
    const event = RecordCreated.create({ recid, context: { userId: 'u-1' } });
    uow!.register(new SendEventOp(event));
    if (recid.startsWith('bad')) throw new Error(`rejected ${recid}`);
    return event;
  }
}

let dataSource: DataSource;
const buses: TestEventBus[] = [];

beforeAll(async () => {
  dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [RecordRow, ...COMMITBUS_ENTITIES],
    synchronize: true,
  });
  await dataSource.initialize();
});
beforeEach(() => dataSource.getRepository(RecordRow).clear());
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});
afterAll(() => dataSource.destroy());

async function testBus(options: Parameters<typeof createTestBus>[0]): Promise<TestEventBus> {
  const bus = await createTestBus(options);
  buses.push(bus);
  return bus;
}

describe('createTestBus with a service', () => {
  it('shows in `published` what a service published after commit, decoded as a worker sees it', async () => {
    const bus = await testBus({ events: [RecordCreated], runHandlers: false });
    const service = new RecordService(new UnitOfWorkManager({ dataSource, bus }));
    const first = await service.create('a');
    await expect(service.create('bad-1')).rejects.toThrow('rejected bad-1');
    const second = await service.create('b');
    expect(bus.published.map((e) => e.id)).toEqual([first.id, second.id]);
    expect(bus.publishedOf(RecordCreated).map((e) => e.recid)).toEqual(['a', 'b']);
    expect(bus.published[0]).toBeInstanceOf(RecordCreated);
    expect(bus.published[0]).not.toBe(first);
    expect(bus.published[0]?.context).toEqual({ userId: 'u-1' });
    expect(bus.publishedOf(RecordUpdated)).toEqual([]);
    bus.clear();
    expect(bus.published).toEqual([]);
  });
});

describe('createTestBus with an outbox', () => {
  it('records in `published`, and tells `onPublished`, the events the outbox relay republished', async () => {
    const told: string[] = [];
    const handled: string[] = [];
    const index = defineHandler<RecordCreated>('records.index', (event) => void handled.push(event.recid));
    const bus = await testBus({
      events: [RecordCreated],
      handlers: { 'RECORD.CREATE': [index] },
      dataSource,
      config: { outboxGraceMs: 1, outboxRelayEveryMs: 20 },
      onPublished: (events) => told.push(...events.map((e) => (e as RecordCreated).recid)),
    });
    // A row a publisher left behind when it died between commit and publish.
    const left = RecordCreated.create({ recid: 'left' });
    const { payload } = bus.encode(left);
    await bus.outbox?.write(dataSource.manager, [{ id: left.id, handlingKey: left.handlingKey, payload }]);

    await waitFor('the relay to republish the row', async () => (await bus.outbox?.pending()) === 0, {
      timeoutMs: 5_000,
    });
    await bus.settle();
    expect(handled).toEqual(['left']);
    expect(bus.published.map((e) => e.id)).toEqual([left.id]);
    expect(bus.published[0]).toBeInstanceOf(RecordCreated);
    expect(told).toEqual(['left']);
  });
});

describe('settle()', () => {
  it('waits for async handlers, their retries after a backoff, and the events they publish', async () => {
    const runs: string[] = [];
    const index = defineHandler<RecordCreated>('records.index', async (event, ctx) => {
      runs.push(`index ${event.recid} attempt ${ctx.attempt}`);
      if (ctx.attempt === 1) throw new Error('search cluster busy');
      await ctx.publish(RecordUpdated.create({ recid: event.recid }));
    });
    const audit = defineHandler<RecordUpdated>('records.audit', (event) => {
      runs.push(`audit ${event.recid}`);
    });
    const bus = await testBus({
      events: [RecordCreated, RecordUpdated],
      handlers: {
        'RECORD.CREATE': [{ handler: index, backoff: { type: 'fixed', delayMs: 30 } }],
        'RECORD.UPDATE': [audit],
      },
    });
    const service = new RecordService(new UnitOfWorkManager({ dataSource, bus }));
    await service.create('a');
    await bus.settle();
    expect(runs).toEqual(['index a attempt 1', 'index a attempt 2', 'audit a']);
    expect(bus.published.map((e) => `${e.handlingKey}:${(e as RecordCreated).recid}`)).toEqual([
      'RECORD.CREATE:a',
      'RECORD.UPDATE:a',
    ]);
    expect(await bus.deadLetters.list()).toEqual([]);
    expect(await bus.backlog()).toBe(0);
  });

  it('runs sync handlers in order and dead-letters a handler that ran out of attempts', async () => {
    const runs: string[] = [];
    const first = defineHandler<RecordCreated>('first', (e) => void runs.push(`first ${e.recid}`));
    const second = defineHandler<RecordCreated>('second', (e) => void runs.push(`second ${e.recid}`));
    const broken = defineHandler<RecordCreated>('broken', (_e, ctx: HandlerContext) => {
      runs.push(`broken attempt ${ctx.attempt}`);
      throw new Error('always fails');
    });
    const bus = await testBus({
      events: [RecordCreated],
      handlers: {
        RECORD: [[first, true]],
        'RECORD.CREATE': [[second, true], { handler: broken, attempts: 2 }],
      },
    });
    await bus.publish([RecordCreated.create({ recid: 'a' }), RecordCreated.create({ recid: 'b' })]);
    await bus.settle();
    expect(runs.filter((r) => !r.startsWith('broken'))).toEqual([
      'first a',
      'second a',
      'first b',
      'second b',
    ]);
    expect(runs.filter((r) => r.startsWith('broken')).sort()).toEqual([
      'broken attempt 1',
      'broken attempt 1',
      'broken attempt 2',
      'broken attempt 2',
    ]);
    const letters = await bus.deadLetters.list({ handler: 'broken' });
    expect(letters).toHaveLength(2);
    expect(letters.map((l) => l.eventId).sort()).toEqual(bus.published.map((e) => e.id).sort());
    for (const letter of letters) {
      expect(letter).toMatchObject({ kind: 'handler', reason: 'exhausted', error: 'always fails' });
      expect(letter.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    }
  });

  it('refuses to wait on a bus that runs no handlers', async () => {
    const bus = await testBus({ events: [RecordCreated], runHandlers: false });
    await expect(bus.settle()).rejects.toThrow('this test bus runs no handlers (runHandlers: false)');
  });
});

describe('runHandler()', () => {
  it('calls one handler with one event, and records what it publishes', async () => {
    const seen: string[] = [];
    const index = defineHandler<RecordCreated>('records.index', async (event, ctx) => {
      seen.push(`${ctx.handlerName} ${event.recid} attempt ${ctx.attempt}`);
      await ctx.publish(RecordUpdated.create({ recid: event.recid }));
    });
    const other = defineHandler<RecordCreated>('records.other', () => void seen.push('other'));
    const bus = await testBus({
      events: [RecordCreated, RecordUpdated],
      handlers: { RECORD: [index, other] },
      runHandlers: false,
    });
    await bus.runHandler(index, RecordCreated.create({ recid: 'a' }));
    await bus.runHandler(index, RecordCreated.create({ recid: 'b' }), 3);
    expect(seen).toEqual(['records.index a attempt 1', 'records.index b attempt 3']);
    expect(bus.publishedOf(RecordUpdated).map((e) => e.recid)).toEqual(['a', 'b']);
    expect(bus.publishedOf(RecordCreated)).toEqual([]);
  });

  it('lets a handler failure reach the test', async () => {
    const bus = await testBus({ events: [RecordCreated], runHandlers: false });
    const failing = defineHandler<RecordCreated>('failing', () => {
      throw new Error('nope');
    });
    await expect(bus.runHandler(failing, RecordCreated.create({ recid: 'a' }))).rejects.toThrow('nope');
  });
});
