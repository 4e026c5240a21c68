/**
 * Attack: another process holding the write lock of a bus's SQLite file
 * (`sqliteTransport({ file })`, SQLite's busy timeout of 5 s, better-sqlite3
 * waiting for it synchronously). A file locked whole when the bus opens it:
 * `SqliteOpenFailedError` after the busy timeout, not a hang, and the bus
 * works once the lock is gone. A process SIGKILLed mid-transaction: its
 * lock dies with it (the bus does not wait the busy timeout) and its
 * uncommitted row with it. A process stopped mid-transaction past the busy
 * timeout: a publish meanwhile rejects with `TransportUnavailableError`
 * saying why (not a bare `QueryFailedError`), and the worker, whose loops
 * met the lock while an event was half handled (its sync handler run, its
 * async one not yet handed out), loses nothing: once the lock is gone it
 * handles every event, none given up.
 *
 * While the lock is held, every statement of this process's bus waits the
 * busy timeout with the event loop blocked (better-sqlite3 is synchronous):
 * these cases take tens of seconds, so they run under `npm run test:chaos`
 * (SQLITE_LOCK_ATTACKS=1) only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type EventBus, TransportUnavailableError } from '../../src/index.js';
import { SqliteOpenFailedError, sqliteTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { waitFor } from '../helpers/wait-for.js';

const HOLDER = fileURLToPath(new URL('../fixtures/sqlite-lock-holder.ts', import.meta.url));
const BUSY_TIMEOUT_MS = 5_000;

const buses = new Buses();
const holders: ChildProcess[] = [];
afterEach(async () => {
  for (const child of holders.splice(0)) child.kill('SIGKILL');
  await buses.closeAll();
});
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function databaseFile(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'cb-sqlite-locks-'));
  folders.push(folder);
  return join(folder, 'events.sqlite');
}

/** A lock holder process on `file`; `send` resolves to its answer. */
function holder(file: string, bus: string): { child: ChildProcess; send(command: string): Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, file, bus], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  holders.push(child);
  const answers: ((line: string) => void)[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) answers.shift()?.(line);
  });
  return {
    child,
    send: (command) =>
      new Promise((resolve) => {
        answers.push(resolve);
        child.stdin?.write(`${command}\n`);
      }),
  };
}

/** Kills `child` and waits until it is gone (and with it, its locks). */
async function kill(child: ChildProcess): Promise<void> {
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

/** A started bus on `file` with a sync and an async handler; `rec` records both. */
async function worker(file: string, name: string, rec: Recorder, sync = rec.handler('locks.sync')) {
  const { bus } = await buses.start({
    events: TEST_EVENTS,
    handlers: { 'RECORD.CREATE': [[sync, true], rec.handler('locks.async')] },
    // An event its drain had to leave is taken again after a second, not the default minute.
    config: fastConfig({ name, handlers: { attempts: 2 }, drains: { claimStaleAfterMs: 1_000 } }),
    transport: sqliteTransport({ file, pollMs: 20 }),
  });
  return bus;
}

/** Whether every one of `ids` ran on both handlers. */
function handledAll(rec: Recorder, ids: readonly string[]): boolean {
  return ids.every((id) => rec.count('locks.sync', id) > 0 && rec.count('locks.async', id) > 0);
}

// Each lock freezes the event loop of this process while its statements wait on it (better-sqlite3
// waits synchronously, 5 s a statement): tens of seconds in all, so only under `npm run test:chaos`.
describe('another process holding the SQLite write lock', { timeout: 90_000 }, () => {
  it('the whole file, as the bus opens it: SqliteOpenFailedError after the busy timeout; the bus works once it is gone', async () => {
    const file = await databaseFile();
    const locker = holder(file, 'unused');
    expect(await locker.send('exclusive')).toBe('locked');
    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file, pollMs: 20 }) });

    const started = Date.now();
    const error = await bus.publish(recordCreated('locked-out')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqliteOpenFailedError);
    expect((error as Error).message).toContain('database is locked');
    expect(Date.now() - started).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(BUSY_TIMEOUT_MS * 2);

    await kill(locker.child);
    await bus.publish(recordCreated('after'));
    expect(await bus.backlog()).toBe(1);
  });

  it('killed mid-transaction: the bus goes on at once, and the uncommitted row is gone', async () => {
    const file = await databaseFile();
    const rec = new Recorder();
    const bus = await worker(file, 'locks-killed', rec);
    const locker = holder(file, 'locks-killed');
    expect(await locker.send('lock')).toBe('locked');
    await kill(locker.child);

    const started = Date.now();
    const events = Array.from({ length: 5 }, (_, i) => recordCreated(`k${i}`));
    await bus.publish(events);
    await waitFor('the events handled', () =>
      handledAll(
        rec,
        events.map((e) => e.id),
      ),
    );
    expect(Date.now() - started).toBeLessThan(BUSY_TIMEOUT_MS);
    await bus.whenIdle(10_000);
    expect(rec.runs.length).toBe(events.length * 2);
    expect(await bus.deadLetters.list()).toEqual([]);
    expect(await bus.backlog()).toBe(0);
  });

  it('stopped mid-transaction past the busy timeout: publishes refused with TransportUnavailableError, nothing lost or given up', async () => {
    const file = await databaseFile();
    const name = 'locks-stopped';
    let locker: ReturnType<typeof holder> | undefined;
    let stopped = false;
    const rec = new Recorder();
    // The sync handler of the first event has the lock taken (and its holder stopped) before it
    // returns, so the drain then meets the lock handing the event to the async handler.
    const sync = rec.handler('locks.sync', async (event) => {
      if (locker !== undefined || (event as { recid?: string }).recid !== 'trigger') return;
      locker = holder(file, name);
      expect(await locker.send('lock')).toBe('locked');
      locker.child.kill('SIGSTOP');
      stopped = true;
    });
    const bus: EventBus = await worker(file, name, rec, sync);
    const trigger = recordCreated('trigger');
    await bus.publish(trigger);
    await waitFor('the lock taken and its holder stopped', () => stopped, { timeoutMs: 30_000 });

    const refused = await bus.publish(recordCreated('refused')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TransportUnavailableError);
    expect(refused).toMatchObject({ code: 'COMMITBUS_TRANSPORT_UNAVAILABLE' });
    expect((refused as Error).message).toMatch(/database is locked.*busy timeout/);

    await kill((locker as ReturnType<typeof holder>).child);
    const after = recordCreated('after');
    await bus.publish(after);
    await waitFor('both events handled by both handlers', () => handledAll(rec, [trigger.id, after.id]), {
      timeoutMs: 15_000,
    });
    await bus.whenIdle(15_000);
    expect(await bus.deadLetters.list()).toEqual([]);
    expect(rec.count('locks.async', trigger.id)).toBe(1);
    expect(await bus.backlog()).toBe(0);
  });
});
