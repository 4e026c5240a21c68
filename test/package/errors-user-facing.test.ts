/**
 * The errors users hit most, through the public API: each is a
 * CommitbusError of its own class, with its stable code, and its message
 * says what to do. The embedded transport and SQLite: no server is involved.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  BusClosedError,
  COMMITBUS_ENTITIES,
  CommitbusError,
  DataSourceMismatchError,
  DeadLetterFilterError,
  defineHandler,
  EventType,
  HandlerConfigError,
  IdleTimeoutError,
  InvalidDeliveryOptionsError,
  InvalidEventTypeOptionsError,
  isCommitbusError,
  NoDataSourceError,
  SendEventOp,
  type UnitOfWork,
  UnitOfWorkClosedError,
  UnitOfWorkDecoratorError,
  UnitOfWorkManager,
  UnknownEventTypeError,
  unitOfWork,
} from '../../src/index.js';
import { createTestBus, TestBusNotStartedError } from '../../src/testing/index.js';
import { SqlWorkerStartedError, sqliteTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { RecordCreated, RecordRow, RecordUpdated } from '../helpers/records.js';

const buses = new Buses();
const dataSources: DataSource[] = [];

async function sqlite(): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [RecordRow, ...COMMITBUS_ENTITIES],
    synchronize: true,
  });
  dataSources.push(await dataSource.initialize());
  return dataSource;
}

function embeddedBus(options: { dataSource?: DataSource } = {}) {
  return buses.create({
    events: [RecordCreated],
    config: fastConfig({}),
    transport: sqliteTransport({ pollMs: 20 }),
    ...options,
  });
}

/** What `fn` threw or rejected with; fails when it did neither. */
async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  return expect.fail('expected a throw');
}

/** Asserts the class, the code, and that the message says what to do. */
function expectCommitbusError(
  error: unknown,
  cls: abstract new (...args: never[]) => CommitbusError,
  code: string,
  todo: RegExp,
): void {
  expect(error).toBeInstanceOf(cls);
  expect(error).toBeInstanceOf(CommitbusError);
  expect(isCommitbusError(error)).toBe(true);
  expect((error as CommitbusError).code).toBe(code);
  expect((error as CommitbusError).name).toBe(cls.name);
  expect((error as Error).message).toMatch(todo);
}

afterEach(() => buses.closeAll());
afterAll(() => Promise.all(dataSources.splice(0).map((d) => d.destroy())));

describe('setting up', () => {
  it('a UnitOfWorkManager without a DataSource (nor one on its bus): NoDataSourceError', async () => {
    const bus = embeddedBus();
    const error = await caught(() => new UnitOfWorkManager({ bus }));
    expectCommitbusError(
      error,
      NoDataSourceError,
      'COMMITBUS_NO_DATA_SOURCE',
      /pass new UnitOfWorkManager\(\{ dataSource, bus \}\)/,
    );
  });

  it('a second DataSource on one bus: DataSourceMismatchError', async () => {
    const bus = embeddedBus({ dataSource: await sqlite() });
    const other = await sqlite();
    const error = await caught(() => new UnitOfWorkManager({ dataSource: other, bus }));
    expectCommitbusError(
      error,
      DataSourceMismatchError,
      'COMMITBUS_DATA_SOURCE_MISMATCH',
      /create one bus per DataSource/,
    );
  });

  it('a handler with a bad name, or without a function: HandlerConfigError', async () => {
    const badName = await caught(() => defineHandler('send mail!', async () => {}));
    expectCommitbusError(
      badName,
      HandlerConfigError,
      'COMMITBUS_HANDLER_CONFIG',
      /use letters, digits, "_", "\." or "-"/,
    );
    const noFn = await caught(() => defineHandler('mail.send', 'send' as never));
    expectCommitbusError(
      noFn,
      HandlerConfigError,
      'COMMITBUS_HANDLER_CONFIG',
      /pass defineHandler\(name, async/,
    );
  });

  it('@EventType options it cannot use: InvalidEventTypeOptionsError', async () => {
    const error = await caught(() => EventType('RECORD.ARCHIVE', { afterLastAttempt: 'skip' }));
    expectCommitbusError(
      error,
      InvalidEventTypeOptionsError,
      'COMMITBUS_INVALID_EVENT_TYPE_OPTIONS',
      /give orderBy too/,
    );
  });

  it('@unitOfWork() on a method without a parameter for it: UnitOfWorkDecoratorError', async () => {
    const error = await caught(() =>
      unitOfWork()({ unitOfWorks: undefined as never }, 'save', { value: async () => 1 }),
    );
    expectCommitbusError(
      error,
      UnitOfWorkDecoratorError,
      'COMMITBUS_UNIT_OF_WORK_DECORATOR',
      /needs a parameter for the unit of work.*or give paramIndex/,
    );
  });

  it('@unitOfWork() on a service without unitOfWorks: UnitOfWorkDecoratorError naming the property', async () => {
    const descriptor: PropertyDescriptor = { value: async (_data: string, _uow?: UnitOfWork) => 1 };
    unitOfWork()({ unitOfWorks: undefined as never }, 'save', descriptor);
    const save = descriptor.value as (this: object, data: string) => Promise<number>;
    const error = await caught(() => save.call({ uowManager: {} }, 'x'));
    expectCommitbusError(
      error,
      UnitOfWorkDecoratorError,
      'COMMITBUS_UNIT_OF_WORK_DECORATOR',
      /save: this\.unitOfWorks is not a UnitOfWorkManager.*readonly unitOfWorks: UnitOfWorkManager/,
    );
  });
});

describe('publishing', () => {
  it('an event whose class the bus does not know: UnknownEventTypeError naming the known ones', async () => {
    const bus = embeddedBus();
    const error = await caught(() => bus.publish(RecordUpdated.create({ recid: 'r-1' })));
    expectCommitbusError(
      error,
      UnknownEventTypeError,
      'COMMITBUS_UNKNOWN_EVENT_TYPE',
      /known: RECORD\.CREATE\); add the class to the registry/,
    );
  });

  it('both delay and delayUntil: InvalidDeliveryOptionsError, nothing published', async () => {
    const bus = embeddedBus();
    const event = RecordCreated.create({ recid: 'r-2' });
    const error = await caught(() => bus.publish(event, { delay: 10, delayUntil: new Date() }));
    expectCommitbusError(
      error,
      InvalidDeliveryOptionsError,
      'COMMITBUS_INVALID_DELIVERY_OPTIONS',
      /give either delay or delayUntil, not both/,
    );
    expect(await bus.backlog()).toBe(0);
  });

  it('on a unit of work kept past its commit: UnitOfWorkClosedError, and the event is not published', async () => {
    const bus = embeddedBus({ dataSource: await sqlite() });
    const uowManager = new UnitOfWorkManager({ bus });
    const kept = await uowManager.run(async (uow) => uow);
    const error = await caught(() => kept.register(new SendEventOp(RecordCreated.create({ recid: 'r-3' }))));
    expectCommitbusError(
      error,
      UnitOfWorkClosedError,
      'COMMITBUS_UNIT_OF_WORK_CLOSED',
      /already committed.*start a new one/,
    );
    expect(await bus.backlog()).toBe(0);
  });

  it('events registered from a commit hook, after the commit: UnitOfWorkClosedError', async () => {
    const bus = embeddedBus({ dataSource: await sqlite() });
    const uowManager = new UnitOfWorkManager({ bus });
    let late: unknown;
    await uowManager.run(async (uow: UnitOfWork) => {
      uow.register({
        onPostCommit: async () => {
          late = await caught(() => uow.register(new SendEventOp(RecordCreated.create({ recid: 'r-4' }))));
        },
      });
    });
    expectCommitbusError(late, UnitOfWorkClosedError, 'COMMITBUS_UNIT_OF_WORK_CLOSED', /start a new one/);
  });
});

describe('running and operating', () => {
  it('a second worker on an embedded bus: SqlWorkerStartedError', async () => {
    const { bus } = await buses.start({
      events: [RecordCreated],
      config: fastConfig({}),
      transport: sqliteTransport({ pollMs: 20 }),
    });
    const error = await caught(() => bus.startWorker({ handleSignals: false }));
    expectCommitbusError(
      error,
      SqlWorkerStartedError,
      'COMMITBUS_SQL_WORKER_STARTED',
      /call startWorker\(\) once per bus/,
    );
  });

  it('a bus used after close(): BusClosedError for publish and startWorker, nothing published', async () => {
    // On a file, so a bus opened after it can see what the closed one left.
    const file = join(await mkdtemp(join(tmpdir(), 'cb-errors-')), 'events.sqlite');
    const onFile = () =>
      buses.create({ events: [RecordCreated], config: fastConfig({}), transport: sqliteTransport({ file }) });
    const bus = onFile();
    await bus.publish(RecordCreated.create({ recid: 'r-before' }));
    await bus.close();
    const publish = await caught(() => bus.publish(RecordCreated.create({ recid: 'r-6' })));
    expectCommitbusError(
      publish,
      BusClosedError,
      'COMMITBUS_BUS_CLOSED',
      /cannot publish: this bus was closed\. Close a bus last/,
    );
    const worker = await caught(() => bus.startWorker({ handleSignals: false }));
    expectCommitbusError(
      worker,
      BusClosedError,
      'COMMITBUS_BUS_CLOSED',
      /cannot start a worker: .*createEventBus/,
    );
    const after = onFile();
    expect(await after.backlog()).toBe(1);
    await after.close();
    await rm(dirname(file), { recursive: true, force: true });
  });

  it('waiting for idle with no worker to handle the backlog: IdleTimeoutError', async () => {
    const bus = embeddedBus();
    await bus.publish(RecordCreated.create({ recid: 'r-5' }));
    const error = await caught(() => bus.whenIdle(100));
    expectCommitbusError(
      error,
      IdleTimeoutError,
      'COMMITBUS_IDLE_TIMEOUT',
      /not idle after 100 ms: start a worker/,
    );
  });

  it('an empty dead-letter filter: DeadLetterFilterError, nothing purged', async () => {
    const bus = embeddedBus();
    const error = await caught(() => bus.deadLetters.purge({}));
    expectCommitbusError(
      error,
      DeadLetterFilterError,
      'COMMITBUS_DEAD_LETTER_FILTER',
      /pass 'all' to mean that/,
    );
  });

  it('a filter with no field set, or a field no filter has: DeadLetterFilterError, nothing purged or re-driven', async () => {
    const bus = embeddedBus();
    await bus.transport.deadLetters.add([
      {
        id: 'e1.h',
        kind: 'handler',
        handler: 'h',
        reason: 'exhausted',
        error: 'x',
        payload: '{}',
        attempts: [],
        firstFailedAt: new Date(),
        deadAt: new Date(),
      },
    ]);
    const query: { handler?: string } = {};
    for (const target of [{ handler: query.handler }, { since: undefined, until: undefined }]) {
      expectCommitbusError(
        await caught(() => bus.deadLetters.purge(target)),
        DeadLetterFilterError,
        'COMMITBUS_DEAD_LETTER_FILTER',
        /pass 'all' to mean that/,
      );
      expectCommitbusError(
        await caught(() => bus.deadLetters.redrive(target)),
        DeadLetterFilterError,
        'COMMITBUS_DEAD_LETTER_FILTER',
        /pass 'all' to mean that/,
      );
    }
    const typo = { hanlder: 'h' } as unknown as { handler: string };
    expectCommitbusError(
      await caught(() => bus.deadLetters.purge(typo)),
      DeadLetterFilterError,
      'COMMITBUS_DEAD_LETTER_FILTER',
      /no field "hanlder"/,
    );
    expectCommitbusError(
      await caught(() => bus.deadLetters.purge(null as unknown as 'all')),
      DeadLetterFilterError,
      'COMMITBUS_DEAD_LETTER_FILTER',
      /got null/,
    );
    // Listing takes an empty filter (every letter), but not one it cannot read.
    for (const [filter, message] of [
      [{ kund: 'handler' }, /no field "kund"/],
      [{ since: 'yesterday' }, /since must be a valid Date, got "yesterday"/],
      [{ until: new Date(Number.NaN) }, /until must be a valid Date/],
      [{ limit: -1 }, /limit must be a positive integer, got -1/],
    ] as const) {
      expectCommitbusError(
        await caught(() => bus.deadLetters.list(filter as never)),
        DeadLetterFilterError,
        'COMMITBUS_DEAD_LETTER_FILTER',
        message,
      );
    }
    expect((await bus.deadLetters.list({})).map((l) => l.id)).toEqual(['e1.h']);
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual(['e1.h']);
    expect(await bus.deadLetters.purge({ handler: 'h', kind: undefined })).toBe(1);
  });

  it('settle() on a test bus that runs no handlers: TestBusNotStartedError', async () => {
    const bus = await createTestBus({ events: [RecordCreated], runHandlers: false });
    try {
      const error = await caught(() => bus.settle());
      expectCommitbusError(
        error,
        TestBusNotStartedError,
        'COMMITBUS_TEST_BUS_NOT_STARTED',
        /call start\(\) first/,
      );
    } finally {
      await bus.close();
    }
  });
});
