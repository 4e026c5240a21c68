/**
 * `sqliteTransport()`, the embedded transport: the options it refuses (a
 * `ConfigError` that says what to pass), a bus on a database file that keeps
 * its events across a restart and shares the file with a second bus of the
 * process (two DataSources on one WAL file), a file it cannot open
 * (`SqliteOpenFailedError` at the first publish, not a hang, and opened at a
 * later call once the cause is gone), close
 * waiting for the publishes under way (the first one opening the file too),
 * a bus used after close
 * (`SqliteTransportClosedError`, not a request to initialize a DataSource
 * the user never had), and `memoryTransport()`, its deprecated alias.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BusClosedError, ConfigError, type EventHandlersConfig } from '../../../src/index.js';
import { memoryTransport } from '../../../src/transports/memory/index.js';
import {
  SqlDataSourceNotInitializedError,
  SqliteOpenFailedError,
  SqliteTransportClosedError,
  type SqliteTransportOptions,
  SqlTransport,
  sqliteTransport,
} from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';
import { waitFor } from '../../helpers/wait-for.js';

const buses = new Buses();
afterEach(() => buses.closeAll());

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

/** A database file in a fresh temporary folder (removed after the file's tests). */
async function databaseFile(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'cb-sqlite-transport-'));
  folders.push(folder);
  return join(folder, 'events.sqlite');
}

/** An async handler of `RECORD.CREATE` that records its runs. */
function recording(rec: Recorder): EventHandlersConfig {
  return { 'RECORD.CREATE': [rec.handler('sqlite.record')] };
}

describe('sqliteTransport options', () => {
  it('takes no options, a file, ":memory:" and a pollMs in range', () => {
    expect(sqliteTransport().name).toBe('sqlite');
    expect(sqliteTransport({ file: ':memory:', pollMs: 10 }).name).toBe('sqlite');
    expect(sqliteTransport({ file: './events.sqlite', pollMs: 3_600_000 }).name).toBe('sqlite');
  });

  it.each([
    ['not an object', () => sqliteTransport('./events.sqlite' as never), /takes an object of options/],
    ['an array', () => sqliteTransport([] as never), /takes an object of options/],
    [
      'a misspelt option',
      () => sqliteTransport({ fiel: './events.sqlite' } as never),
      /no option 'fiel'; its options are file, pollMs$/,
    ],
    [
      'a DataSource',
      () => sqliteTransport({ dataSource: {} } as never),
      /no option 'dataSource'.*use sqlTransport\(\{ dataSource \}\)/,
    ],
    ['an empty file', () => sqliteTransport({ file: '  ' }), /file must be a path or ':memory:'; got " {2}"/],
    ['a file not a string', () => sqliteTransport({ file: 7 } as never), /file must be a path.*got 7/],
    [
      'a pollMs under 10',
      () => sqliteTransport({ pollMs: 9 }),
      /pollMs must be .* from 10 to 3600000; got 9/,
    ],
    ['a pollMs over an hour', () => sqliteTransport({ pollMs: 3_600_001 }), /from 10 to 3600000/],
    ['a pollMs not whole', () => sqliteTransport({ pollMs: 20.5 }), /pollMs must be a whole number/],
  ] as const)('refuses %s with a ConfigError', (_what, make: () => unknown, message: RegExp) => {
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(message);
  });

  it('is in-process in memory only, and says so on the bus', async () => {
    const file = await databaseFile();
    expect(sqliteTransport().inProcess).toBe(true);
    expect(sqliteTransport({ file: ':memory:' }).inProcess).toBe(true);
    expect(sqliteTransport({ file }).inProcess).toBe(false);
    const inMemory = buses.create({ events: TEST_EVENTS, transport: sqliteTransport() });
    const onFile = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) });
    expect(inMemory.runsOn).toEqual({
      transport: 'sql-sqlite',
      inProcess: true,
      location: 'SQLite :memory:',
    });
    expect(onFile.runsOn).toEqual({ transport: 'sql-sqlite', inProcess: false, location: `SQLite ${file}` });
  });
});

describe('a bus on sqliteTransport({ file })', () => {
  const options = (file: string): SqliteTransportOptions => ({ file, pollMs: 20 });

  it('publishes and handles', async () => {
    const rec = new Recorder();
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: recording(rec),
      config: fastConfig({ name: 'sqlite-file' }),
      transport: sqliteTransport(options(await databaseFile())),
    });
    expect(bus.transport).toBeInstanceOf(SqlTransport);
    const event = recordCreated('r1');
    await bus.publish(event);
    await bus.whenIdle(10_000);
    expect(rec.order(event.id)).toEqual(['sqlite.record']);
    expect(await bus.deadLetters.list()).toEqual([]);
  });

  it('keeps events published and not handled across a restart: a new bus on the file handles them', async () => {
    const file = await databaseFile();
    const config = fastConfig({ name: 'sqlite-durable' });
    const events = ['d1', 'd2', 'd3'].map(recordCreated);
    const before = buses.create({ events: TEST_EVENTS, config, transport: sqliteTransport(options(file)) });
    await before.publish(events);
    expect(await before.backlog()).toBe(3);
    await before.close();

    const rec = new Recorder();
    const { bus: after } = await buses.start({
      events: TEST_EVENTS,
      handlers: recording(rec),
      config,
      transport: sqliteTransport(options(file)),
    });
    await after.whenIdle(10_000);
    expect(events.map((e) => rec.count('sqlite.record', e.id))).toEqual([1, 1, 1]);
    expect(await after.backlog()).toBe(0);
  });

  it('shares the file with a second bus of the process: one publishes, the other works', async () => {
    const file = await databaseFile();
    const config = fastConfig({ name: 'sqlite-shared' });
    const rec = new Recorder();
    const { bus: worker } = await buses.start({
      events: TEST_EVENTS,
      handlers: recording(rec),
      config,
      transport: sqliteTransport(options(file)),
    });
    const publisher = buses.create({
      events: TEST_EVENTS,
      config,
      transport: sqliteTransport(options(file)),
    });
    const events = Array.from({ length: 20 }, (_, i) => recordCreated(`s${i}`));
    for (const event of events) await publisher.publish(event);

    await waitFor('the worker bus to handle what the other published', async () => {
      return rec.runs.length >= events.length && (await publisher.backlog()) === 0;
    });
    await worker.whenIdle(10_000);
    expect(events.map((e) => rec.count('sqlite.record', e.id))).toEqual(events.map(() => 1));
    expect(await publisher.deadLetters.list()).toEqual([]);
  });

  it('in a folder that does not exist yet: creates the folder and the file', async () => {
    const file = join(dirname(await databaseFile()), 'new', 'events.sqlite');
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport(options(file)) });
    await bus.publish(recordCreated('kept'));
    expect(await bus.backlog()).toBe(1);
    expect((await stat(file)).isFile()).toBe(true);
  });

  it('where no folder can be made: SqliteOpenFailedError at the first publish, not a hang', async () => {
    // The folder would have to be a file that is there already.
    const inTheWay = join(dirname(await databaseFile()), 'a-file');
    await writeFile(inTheWay, 'not a folder');
    const file = join(inTheWay, 'events.sqlite');
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport(options(file)) });
    const error = await bus.publish(recordCreated('lost')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqliteOpenFailedError);
    expect(error).toMatchObject({ code: 'COMMITBUS_SQLITE_OPEN_FAILED' });
    expect((error as Error).message).toContain(`could not open ${file}`);
    expect((error as Error).message).toContain('Check that its folder exists and is writable');
    // Tried again at the next call, and refused the same way.
    await expect(bus.publish(recordCreated('lost again'))).rejects.toThrow(SqliteOpenFailedError);
  });
});

describe('a bus on sqliteTransport() whose file could not be opened', () => {
  it('in memory, says so instead of pointing at a folder', () => {
    const error = new SqliteOpenFailedError(':memory:', new Error('out of memory'));
    expect(error.message).toMatch(/could not open its database in this process's memory .*: out of memory$/);
    expect(error.message).not.toContain('folder');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('opens it at a later call once the cause is gone, and works from there', async () => {
    const inTheWay = join(dirname(await databaseFile()), 'in-the-way');
    await writeFile(inTheWay, 'not a folder');
    const file = join(inTheWay, 'events.sqlite');
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file, pollMs: 20 }) });
    await expect(bus.publish(recordCreated('refused'))).rejects.toThrow(SqliteOpenFailedError);
    await rm(inTheWay);
    await bus.publish(recordCreated('kept'));
    expect(await bus.backlog()).toBe(1);
    expect((await stat(file)).isFile()).toBe(true);
  });
});

describe('a bus on sqliteTransport() used after close', () => {
  it.each([
    ['in memory', async (): Promise<string> => ':memory:'],
    ['on a file', databaseFile],
  ] as const)(
    '%s: SqliteTransportClosedError saying the bus was closed, for statements and transactions',
    async (_where, fileOf) => {
      const file = await fileOf();
      const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file, pollMs: 20 }) });
      await bus.publish(recordCreated('before'));
      expect(await bus.backlog()).toBe(1);
      await bus.close();

      // The bus refuses first (BusClosedError); its transport's own statements say what closed.
      await expect(bus.backlog()).rejects.toThrow(BusClosedError);
      const transport = bus.transport as SqlTransport;
      const backlog = await transport.log.backlog().catch((e: unknown) => e);
      expect(backlog).toBeInstanceOf(SqliteTransportClosedError);
      expect(backlog).not.toBeInstanceOf(SqlDataSourceNotInitializedError);
      expect(backlog).toMatchObject({ code: 'COMMITBUS_SQLITE_TRANSPORT_CLOSED' });
      expect((backlog as Error).message).toMatch(
        new RegExp(
          `^could not run SELECT: this bus was closed, and with it the SQLite ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} database`,
        ),
      );
      expect((backlog as Error).message).not.toContain('initialize');
      // bus.deadLetters is the bus's too: refused first; the transport's store says what closed.
      await expect(bus.deadLetters.list()).rejects.toThrow(BusClosedError);
      await expect(bus.deadLetters.redrive('all')).rejects.toThrow(
        /cannot list the dead letters: this bus was closed/,
      );
      await expect(transport.deadLetters.list()).rejects.toThrow(SqliteTransportClosedError);
      // A transaction too.
      await expect(transport.publish([])).rejects.toThrow(/could not run a transaction: this bus was closed/);
    },
  );

  it('close waits for the publishes under way: each resolves, and a bus on the file finds them all', async () => {
    const file = await databaseFile();
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) });
    await bus.publish(recordCreated('first'));
    // Called before close, settled after it began: waiting for the group transaction of the appends.
    const pending = Array.from({ length: 50 }, (_, i) =>
      bus.publish(recordCreated(`under-way-${i}`)).then(
        () => 'published',
        (error: unknown) => String(error),
      ),
    );
    await bus.close();
    expect(new Set(await Promise.all(pending))).toEqual(new Set(['published']));
    const after = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) });
    expect(await after.backlog()).toBe(51);
  });

  it('closed while its first publish is opening the file: the publish lands, then the file is closed', async () => {
    const file = await databaseFile();
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) });
    const first = bus.publish(recordCreated('opening'));
    await bus.close();
    await first;
    await expect((bus.transport as SqlTransport).log.backlog()).rejects.toThrow(SqliteTransportClosedError);
    const after = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) });
    expect(await after.backlog()).toBe(1);
  });

  it('closed before its first statement: the same error, and the database is never opened', async () => {
    const file = await databaseFile();
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) });
    await bus.close();
    await expect((bus.transport as SqlTransport).log.backlog()).rejects.toThrow(SqliteTransportClosedError);
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('memoryTransport(), the deprecated alias', () => {
  it('is sqliteTransport() in memory: a bus on it publishes and handles', async () => {
    const adapter = memoryTransport();
    expect(adapter).toMatchObject({ name: 'sqlite', inProcess: true });
    const rec = new Recorder();
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: recording(rec),
      config: fastConfig({ name: 'sqlite-alias' }),
      transport: adapter,
    });
    expect(bus.runsOn).toMatchObject({ transport: 'sql-sqlite', inProcess: true });
    const event = recordCreated('m1');
    await bus.publish(event);
    await bus.whenIdle(10_000);
    expect(rec.order(event.id)).toEqual(['sqlite.record']);
  });
});
