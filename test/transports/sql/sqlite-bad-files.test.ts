/**
 * Attack: `sqliteTransport({ file })` (and `COMMITBUS_SQLITE_FILE`) given
 * what is not a database it may use: a folder, a text file, a PostgreSQL
 * dump, a file with a torn SQLite header, `file:` URIs, a read-only file or
 * folder, `pollMs` far out of range, garbage in the environment. Each must
 * end in a coded error (`ConfigError` at once, `SqliteOpenFailedError` at
 * the first statement), never a hang, never a change to the file, and the
 * bus must close afterwards. A bus polling once an hour still handles what
 * its process publishes and closes at once.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BusClosedError, ConfigError } from '../../../src/index.js';
import { transportFromEnv } from '../../../src/transports/select/index.js';
import { SqliteOpenFailedError, sqliteTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';

const buses = new Buses();
afterEach(() => buses.closeAll());

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

/** A fresh temporary folder (removed after the file's tests). */
async function folder(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'cb-sqlite-bad-'));
  folders.push(made);
  return made;
}

/** What a bus on `file` does at its first publish: the error it rejects with. */
async function firstPublishError(file: string): Promise<unknown> {
  const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file, pollMs: 20 }) });
  const error = await bus.publish(recordCreated('refused')).then(
    () => undefined,
    (e: unknown) => e,
  );
  await bus.close();
  return error;
}

const PG_DUMP = [
  '--',
  '-- PostgreSQL database dump',
  '--',
  "SET statement_timeout = 0;\nSET client_encoding = 'UTF8';",
  'CREATE TABLE public.records (id integer NOT NULL, title text);',
  'COPY public.records (id, title) FROM stdin;\n1\tfirst\n\\.',
  '',
].join('\n');

describe('sqliteTransport on a file that is not a SQLite database', () => {
  it.each([
    ['a text file', 'notes.txt', 'hello world\n'.repeat(200)],
    ['a PostgreSQL dump', 'backup.sql', PG_DUMP],
    ['a torn SQLite header', 'torn.sqlite', 'SQLite format 3\u0000and then garbage'],
  ])(
    '%s: SqliteOpenFailedError ("file is not a database"), the file left as it was',
    async (_what, name, text) => {
      const file = join(await folder(), name);
      await writeFile(file, text);
      const error = await firstPublishError(file);
      expect(error).toBeInstanceOf(SqliteOpenFailedError);
      expect(error).toMatchObject({ code: 'COMMITBUS_SQLITE_OPEN_FAILED' });
      expect((error as Error).message).toContain('file is not a database');
      expect(await readFile(file, 'utf8')).toBe(text);
      expect(await readdir(join(file, '..'))).toEqual([name]);
    },
  );

  it('a folder: SqliteOpenFailedError, the folder left empty', async () => {
    const dir = join(await folder(), 'a-folder');
    await mkdir(dir);
    const error = await firstPublishError(dir);
    expect(error).toBeInstanceOf(SqliteOpenFailedError);
    expect((error as Error).message).toContain('unable to open database file');
    expect(await readdir(dir)).toEqual([]);
  });

  it('an empty file (0 bytes) is an empty database to SQLite: used as one', async () => {
    const file = join(await folder(), 'empty.sqlite');
    await writeFile(file, '');
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file, pollMs: 20 }) });
    await bus.publish(recordCreated('kept'));
    expect(await bus.backlog()).toBe(1);
  });
});

describe('sqliteTransport options an attacker would try', () => {
  it.each([
    ['an empty string', ''],
    ['a file: URI', 'file:events.sqlite'],
    ['a file: URI with a mode', 'file:/tmp/events.sqlite?mode=ro'],
    ['a shared in-memory URI', 'file::memory:?cache=shared'],
    ['an upper-case FILE: URI', 'FILE:events.sqlite'],
  ])('refuses %s with a ConfigError, creating nothing', async (_what, file) => {
    const make = () => sqliteTransport({ file });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(file === '' ? /file must be a path or ':memory:'/ : /must be a path, not a URI/);
  });

  it.each([
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
    ['a year', 365 * 86_400_000],
    ['beyond a 32-bit timer', 2 ** 31],
    ['negative', -1],
    ['a string', '1000' as unknown as number],
  ])('refuses a pollMs of %s with a ConfigError', (_what, pollMs) => {
    expect(() => sqliteTransport({ pollMs })).toThrow(ConfigError);
    expect(() => sqliteTransport({ pollMs })).toThrow(/pollMs must be a whole number of milliseconds/);
  });

  it('polling once an hour (the most it takes): handles what its process publishes, and closes at once', async () => {
    const rec = new Recorder();
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: { 'RECORD.CREATE': [rec.handler('slow-poll.record')] },
      config: fastConfig({ name: 'slow-poll' }),
      transport: sqliteTransport({ file: join(await folder(), 'events.sqlite'), pollMs: 3_600_000 }),
    });
    const event = recordCreated('woken');
    await bus.publish(event);
    await bus.whenIdle(10_000);
    expect(rec.order(event.id)).toEqual(['slow-poll.record']);
    const closing = Date.now();
    await bus.close();
    expect(Date.now() - closing).toBeLessThan(5_000);
  });
});

describe('COMMITBUS_TRANSPORT=sqlite with garbage in COMMITBUS_SQLITE_FILE', () => {
  it('a file: URI or a bad COMMITBUS_SQL_POLL_MS: a ConfigError from transportFromEnv', () => {
    const env = (more: Record<string, string>) => ({ COMMITBUS_TRANSPORT: 'sqlite', ...more });
    expect(() => transportFromEnv({ env: env({ COMMITBUS_SQLITE_FILE: 'file:x.db?mode=ro' }) })).toThrow(
      /must be a path, not a URI/,
    );
    expect(() => transportFromEnv({ env: env({ COMMITBUS_SQLITE_FILE: '   ' }) })).toThrow(ConfigError);
    expect(() =>
      transportFromEnv({
        env: env({ COMMITBUS_SQLITE_FILE: '/tmp/x.sqlite', COMMITBUS_SQL_POLL_MS: '1e9' }),
      }),
    ).toThrow(/COMMITBUS_SQL_POLL_MS must be a whole number/);
  });

  it('a text file: SqliteOpenFailedError at the first publish, the file unchanged, the bus closed after', async () => {
    const file = join(await folder(), 'garbage.txt');
    await writeFile(file, PG_DUMP);
    const transport = transportFromEnv({
      env: { COMMITBUS_TRANSPORT: 'sqlite', COMMITBUS_SQLITE_FILE: file },
    });
    const bus = buses.create({ events: TEST_EVENTS, transport });
    await expect(bus.publish(recordCreated('x'))).rejects.toThrow(SqliteOpenFailedError);
    await expect(bus.startWorker({ handleSignals: false })).rejects.toThrow(SqliteOpenFailedError);
    await bus.close();
    await expect(bus.publish(recordCreated('y'))).rejects.toThrow(BusClosedError);
    expect(await readFile(file, 'utf8')).toBe(PG_DUMP);
  });
});

const PROBE = fileURLToPath(new URL('../../fixtures/sqlite-open-probe.ts', import.meta.url));
const AS_ROOT = process.getuid?.() === 0;

/** Runs the open probe on `files`, as user `nobody` when this process is root; one result per file. */
async function probeUnprivileged(files: readonly string[]): Promise<Record<string, unknown>[]> {
  const node = [process.execPath, '--import', 'tsx', PROBE, ...files];
  const command = AS_ROOT ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...node] : node;
  const child = spawn(command[0] as string, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('sqliteTransport on what the process may not write', () => {
  it('a read-only database, a read-only empty file, a path in a read-only folder: SqliteOpenFailedError, nothing changed', async () => {
    const dir = await folder();
    // A real database of the transport's (its tables made), then made read-only.
    const database = join(dir, 'readonly.sqlite');
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file: database }) });
    await bus.publish(recordCreated('before'));
    await bus.close();
    const empty = join(dir, 'readonly-empty.sqlite');
    await writeFile(empty, '');
    const locked = join(dir, 'locked-folder');
    await mkdir(locked);
    await Promise.all([chmod(dir, 0o755), chmod(database, 0o444), chmod(empty, 0o444), chmod(locked, 0o555)]);
    const bytes = await readFile(database);

    const results = await probeUnprivileged([database, empty, join(locked, 'events.sqlite')]);

    expect(results.map(({ published, code, closed }) => ({ published, code, closed }))).toEqual(
      results.map(() => ({ published: false, code: 'COMMITBUS_SQLITE_OPEN_FAILED', closed: true })),
    );
    expect(results.map((r) => String(r.message).match(/readonly database|unable to open/)?.[0])).toEqual([
      'readonly database',
      'readonly database',
      'unable to open',
    ]);
    expect(await readFile(database)).toEqual(bytes);
    expect(await readFile(empty, 'utf8')).toBe('');
    expect(await readdir(locked)).toEqual([]);
  });
});
