import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type CommitbusOptions,
  createEventBus,
  currentUnitOfWork,
  defineHandler,
  EventBus,
  PublishAfterCommitError,
  SendEventOp,
  silentLogger,
  type UnitOfWork,
  UnitOfWorkManager,
  UnknownEventTypeError,
  withUnitOfWork,
} from '../../src/index.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import {
  committedRecids,
  createRecord,
  hookRecorder,
  RecordCreated,
  RecordDeleted,
  RecordingTransport,
  RecordRow,
  RecordService,
  RecordUpdated,
} from '../helpers/records.js';
import { deleteKeys, openRedis } from '../helpers/redis.js';
import { testRedis } from '../helpers/transports.js';
import { describeUnitOfWorkContract } from '../helpers/uow-contract.js';

const SCHEMA = 'commitbus_test_uow_pg';
let dataSource: DataSource;
const buses: EventBus[] = [];

beforeAll(async () => {
  dataSource = await openSchema(SCHEMA, [RecordRow]);
});
beforeEach(() => dataSource.getRepository(RecordRow).clear());
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});
afterAll(() => closeSchema(dataSource));

/** A bus on a transport that records each publish; its first `failFirst` publishes throw. */
function setup(failFirst = 0, config: CommitbusOptions = {}) {
  const transport = new RecordingTransport(failFirst);
  const bus = new EventBus(
    { events: [RecordCreated, RecordUpdated], config, logger: silentLogger },
    transport,
  );
  buses.push(bus);
  return { transport, bus, uows: new UnitOfWorkManager({ dataSource, bus }) };
}

const rows = () => committedRecids(dataSource);
const recorder = (name: string, calls: string[]) =>
  hookRecorder(name, calls, async () => (await rows()).length);

describeUnitOfWorkContract('PostgreSQL', {
  open: () => openSchema(`${SCHEMA}_contract`, [RecordRow]),
  close: closeSchema,
  uniqueViolation: /duplicate key value violates unique constraint/,
});

describe('unit of work on PostgreSQL', () => {
  it('rolls back and publishes nothing when the COMMIT itself fails (deferred constraint)', async () => {
    const { transport, uows } = setup();
    await dataSource.query(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA}.slots (slot int CONSTRAINT slot_once UNIQUE DEFERRABLE INITIALLY DEFERRED)`,
    );
    const calls: string[] = [];
    const failing = uows.run(async (uow) => {
      await createRecord(uow, 'a');
      uow.register(recorder('A', calls));
      await uow.manager.query(`INSERT INTO ${SCHEMA}.slots VALUES (1), (1)`);
    });
    await expect(failing).rejects.toMatchObject({ driverError: { code: '23505' } });
    expect(calls).toEqual([
      'A.onRegister',
      expect.stringMatching(/^A\.onException .*slot_once/),
      'A.onRollback rows=0',
      'A.onPostRollback',
    ]);
    expect(transport.attempts).toBe(0);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.slots`)).toEqual([{ n: 0 }]);
  });

  it('registering an unregistered event class fails at register time', async () => {
    const { transport, uows } = setup();
    let reachedAfterRegister = false;
    const failing = uows.run(async (uow) => {
      await createRecord(uow, 'a');
      uow.register(new SendEventOp(RecordDeleted.create({ recid: 'a' })));
      reachedAfterRegister = true;
    });
    await expect(failing).rejects.toBeInstanceOf(UnknownEventTypeError);
    await expect(failing).rejects.toThrow(/"RECORD\.DELETE" \(known: RECORD\.CREATE, RECORD\.UPDATE\)/);
    expect(reachedAfterRegister).toBe(false);
    expect(transport.attempts).toBe(0);
    expect(await rows()).toEqual([]);
  });
});

describe('@unitOfWork()', () => {
  it('starts and commits a unit of work when called without one', async () => {
    const { transport, uows } = setup();
    const service = new RecordService(uows);
    await service.create('a');
    expect(service.seen).toHaveLength(1);
    expect(service.seen[0]?.isOpen).toBe(false);
    expect(transport.batches.map((batch) => batch.map((e) => e.recid))).toEqual([['a']]);
    expect(await rows()).toEqual(['a']);
  });

  it('joins a unit of work passed in, even outside its async context', async () => {
    const { transport, uows } = setup();
    const service = new RecordService(uows);
    let handOver!: (uow: UnitOfWork) => void;
    const handedOver = new Promise<UnitOfWork>((resolve) => {
      handOver = resolve;
    });
    // Continues in the test's async context, where no unit of work is active.
    const fromOutside = handedOver.then(async (uow) => {
      expect(currentUnitOfWork()).toBeUndefined();
      await service.create('b', uow);
    });
    await uows.run(async (uow) => {
      await createRecord(uow, 'a');
      handOver(uow);
      await fromOutside;
      expect(service.seen).toEqual([uow]);
      expect(transport.batches).toEqual([]);
    });
    expect(transport.batches).toHaveLength(1);
    expect(transport.sent()).toEqual(['RECORD.CREATE:a', 'RECORD.CREATE:b']);
    expect(await rows()).toEqual(['a', 'b']);
  });

  it('joins the unit of work of the async context', async () => {
    const { transport, uows } = setup();
    const service = new RecordService(uows);
    await withUnitOfWork(uows, async (uow) => {
      await service.create('a');
      await service.create('b');
      expect(service.seen).toEqual([uow, uow]);
      expect(transport.batches).toEqual([]);
    });
    expect(transport.batches).toHaveLength(1);
    expect(transport.sent()).toEqual(['RECORD.CREATE:a', 'RECORD.CREATE:b']);
  });
});

describe('operation hooks', () => {
  it('run in phase order across operations on commit', async () => {
    const { uows } = setup();
    const calls: string[] = [];
    await uows.run(async (uow) => {
      await uow.manager.insert(RecordRow, { recid: 'a' });
      uow.register(recorder('A', calls));
      uow.register(recorder('B', calls));
      calls.push('body done');
    });
    expect(calls).toEqual([
      'A.onRegister',
      'B.onRegister',
      'body done',
      'A.onCommit rows=1',
      'B.onCommit rows=1',
      'A.onPostCommit',
      'B.onPostCommit',
    ]);
  });

  it('run in phase order across operations on failure, after the rollback', async () => {
    const { uows } = setup();
    const calls: string[] = [];
    const failing = uows.run(async (uow) => {
      await uow.manager.insert(RecordRow, { recid: 'a' });
      uow.register(recorder('A', calls));
      uow.register(recorder('B', calls));
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    expect(calls).toEqual([
      'A.onRegister',
      'B.onRegister',
      'A.onException boom',
      'B.onException boom',
      'A.onRollback rows=0',
      'B.onRollback rows=0',
      'A.onPostRollback',
      'B.onPostRollback',
    ]);
  });
});

describe('publishing after commit fails, without an outbox', () => {
  it('is retried publishAttempts times, then raises PublishAfterCommitError naming the events', async () => {
    const { transport, uows } = setup(Number.POSITIVE_INFINITY, {
      publishAttempts: 3,
      publishBackoffMs: 1,
      outbox: false,
    });
    const ids: string[] = [];
    const failing = uows.run(async (uow) => {
      ids.push((await createRecord(uow, 'a')).id, (await createRecord(uow, 'b')).id);
    });
    const error = await failing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishAfterCommitError);
    const publishError = error as PublishAfterCommitError;
    expect(publishError.code).toBe('COMMITBUS_PUBLISH_AFTER_COMMIT');
    for (const id of ids) expect(publishError.message).toContain(`RECORD.CREATE ${id}`);
    expect(publishError.events).toEqual(ids.map((id) => ({ id, key: 'RECORD.CREATE' })));
    expect((publishError.cause as Error).message).toBe('broker unreachable (attempt 3)');
    expect(transport.attempts).toBe(3);
    expect(await rows()).toEqual(['a', 'b']);
  });

  it('publishes once when a retry succeeds', async () => {
    const { transport, uows } = setup(2, { publishAttempts: 3, publishBackoffMs: 1, outbox: false });
    await uows.run((uow) => createRecord(uow, 'a'));
    expect(transport.attempts).toBe(3);
    expect(transport.batches).toHaveLength(1);
    expect(transport.sent()).toEqual(['RECORD.CREATE:a']);
  });
});

describe('unit of work with the bullmq transport', () => {
  const prefix = `commitbus-test-uow-pg-${randomUUID()}`;
  const redis = openRedis();

  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('runs the handlers of committed events in order, and none of rolled-back ones', async () => {
    const handled: string[] = [];
    let allHandled!: () => void;
    const threeHandled = new Promise<void>((resolve) => {
      allHandled = resolve;
    });
    const audit = defineHandler<RecordCreated | RecordUpdated>('records.audit', (event) => {
      handled.push(`${event.handlingKey}:${event.recid}`);
      if (handled.length === 3) allHandled();
    });
    const bus = createEventBus({
      events: [RecordCreated, RecordUpdated],
      handlers: { RECORD: [[audit, true]] },
      config: { prefix, scheduleEveryMs: 0, blockMs: 100 },
      transport: testRedis(),
      logger: silentLogger,
    });
    buses.push(bus);
    await bus.startWorker({ handleSignals: false });
    const uows = new UnitOfWorkManager({ dataSource, bus });
    await expect(
      uows.run(async (uow) => {
        await createRecord(uow, 'gone');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await uows.run(async (uow) => {
      await createRecord(uow, 'x');
      uow.register(new SendEventOp(RecordUpdated.create({ recid: 'x' })));
      await createRecord(uow, 'y');
    });
    await threeHandled;
    expect(handled).toEqual(['RECORD.CREATE:x', 'RECORD.UPDATE:x', 'RECORD.CREATE:y']);
    await vi.waitFor(async () => expect(await bus.backlog()).toBe(0));
    expect(await rows()).toEqual(['x', 'y']);
  });
});
