/**
 * Attack: processes (a publisher and its workers started together) and buses
 * of one process opening a SQLite file that does not exist yet, all at once.
 * Each must find or make the transport's tables, none may fail on
 * `table ... already exists`, and every event they publish must be there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sqliteTransport } from '../../../src/transports/sql/index.js';
import { Buses } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';

const RACER = fileURLToPath(new URL('../../fixtures/sqlite-open-race.ts', import.meta.url));
const buses = new Buses();
afterEach(() => buses.closeAll());
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function newFile(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'cb-sqlite-race-'));
  folders.push(folder);
  return join(folder, 'events.sqlite');
}

/** The lines `child` prints, as they come. */
function lines(child: ChildProcess): { next(): Promise<string> } {
  const seen: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) (waiting.shift() ?? ((l: string) => seen.push(l)))(line);
  });
  return {
    next: () => {
      const line = seen.shift();
      return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

describe('opening a new SQLite file from several places at once', () => {
  it('four processes released together: each publishes, the file holds all four events', async () => {
    const file = await newFile();
    const racers = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', RACER, file], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      return { child, out: lines(child) };
    });
    expect(await Promise.all(racers.map((r) => r.out.next()))).toEqual(racers.map(() => 'ready'));
    for (const { child } of racers) child.stdin?.write('go\n');
    expect(await Promise.all(racers.map((r) => r.out.next()))).toEqual(racers.map(() => 'published'));

    const bus = buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) });
    expect(await bus.backlog()).toBe(racers.length);
  });

  it('three buses of one process: each publishes, none waits on another for the lock', async () => {
    const file = await newFile();
    const three = [1, 2, 3].map(() =>
      buses.create({ events: TEST_EVENTS, transport: sqliteTransport({ file }) }),
    );
    const started = Date.now();
    await Promise.all(three.map((bus, i) => bus.publish(recordCreated(`bus-${i}`))));
    // SQLite's busy timeout is 5 s: a bus that waited on another of this process would take that long.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await (three[0] ?? buses.create({ events: TEST_EVENTS })).backlog()).toBe(3);
  });
});
