/**
 * Writer takeover on a SQLite file (issue 17): the writer holds an OS lock
 * the kernel frees when its process dies, so a stand-by process on the same
 * machine takes over a `kill -9`ed writer within its `takeoverMs`, not once
 * the lease (15 s by default) has run out. A writer that is alive but frozen
 * (SIGSTOP) keeps that lock: the stand-by takes over only once its lease has
 * run out, and the thawed process steps back. Real child processes on a real
 * file; outcomes read from the file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { StoreStateRowEntity } from '../../src/event-store/index.js';
import { COMMITBUS_ENTITIES } from '../../src/index.js';
import { PROCESS_ENTITIES } from '../fixtures/event-store-process-models.js';
import { type StoreChild, spawnStoreChild, storeChildren } from '../helpers/event-store-child.js';
import { expectedFold, foldReport, writerRuns } from '../helpers/event-store-fold.js';
import { waitFor } from '../helpers/wait-for.js';

const children = storeChildren();
let dir: string;
let file: DataSource;
let n = 0;
let path: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'es-takeover-'));
});
afterAll(async () => {
  await file?.destroy();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

// A fresh database file per test, its tables made by a DataSource of this process.
async function freshFile(): Promise<void> {
  await file?.destroy();
  path = join(dir, `store-${++n}.sqlite`);
  file = await new DataSource({
    type: 'better-sqlite3',
    database: path,
    entities: [...PROCESS_ENTITIES, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
}

function child(name: string, env: Record<string, string> = {}): StoreChild {
  const spawned = spawnStoreChild(`es-takeover:${name}`, {
    ES_DB: 'sqlite',
    ES_SQLITE_FILE: path,
    ES_START: '1',
    ES_BATCH_SIZE: '20',
    ...env,
  });
  children.push(spawned);
  return spawned;
}

const isWriter = async (c: StoreChild) => (await c.call<{ isWriter: boolean }>({ cmd: 'status' })).isWriter;
const lease = () => file.getRepository(StoreStateRowEntity).findOneByOrFail({ id: 'writer' });

async function writerAndStandBy(pair: StoreChild[]): Promise<{ writer: StoreChild; other: StoreChild }> {
  await Promise.all(pair.map((c) => c.ready));
  let writers: boolean[] = [];
  await waitFor('one of them to be the writer', async () => {
    writers = await Promise.all(pair.map(isWriter));
    return writers.includes(true);
  });
  expect(writers.filter(Boolean).length).toBe(1);
  return {
    writer: pair[writers.indexOf(true)] as StoreChild,
    other: pair[writers.indexOf(false)] as StoreChild,
  };
}

it('a kill -9ed writer is taken over within takeoverMs, long before its lease (the default 15 s) runs out', async () => {
  await freshFile();
  // The lease is left at its default; the stand-by tries every 100 ms.
  const { writer, other } = await writerAndStandBy([child('kill-0'), child('kill-1')]);
  await other.call({ cmd: 'dispatchMany', source: 'x', count: 100, loops: 10 });
  expect(await other.call({ cmd: 'waitForQueue' })).toBe(100);

  // Killed mid-batch (slow events, 5 ms each), holding SQLite's write lock.
  const more = other.call({ cmd: 'dispatchMany', source: 'y', count: 200, loops: 5, ms: 5 });
  await waitFor(
    'the writer to be part-way through them',
    async () => {
      const { handled } = await foldReport(file);
      return handled > 120 && handled < 260;
    },
    { intervalMs: 5, timeoutMs: 20_000 },
  );
  await writer.kill();
  const killedAt = writer.killedAt as number;
  const { leaseUntil, handled: handledAtKill } = await lease();
  await more;
  await waitFor('the stand-by to be the writer', () => other.writerChanges.some((w) => w.writer), {
    timeoutMs: 30_000,
  });
  const became = other.writerChanges.find((w) => w.writer)?.at as number;
  // Within a second on an idle machine; 5 s allows for a loaded one, and is
  // still far below the 15 s lease the dead writer left behind.
  expect(became - killedAt, `took over ${became - killedAt} ms after the kill`).toBeLessThan(5_000);
  expect(became).toBeLessThan((leaseUntil as number) - 5_000);

  expect(await other.call({ cmd: 'waitForQueue' })).toBe(300);
  expect((await lease()).writer).toContain(`:${other.pid}:`);
  expect(await foldReport(file)).toEqual(expectedFold({ x: 100, y: 200 }));
  const runs = await writerRuns(file);
  expect(runs.map((r) => r.pid)).toEqual([writer.pid, other.pid]);
  expect(runs[1]).toEqual({ pid: other.pid, from: handledAtKill + 1, to: 300 });
}, 90_000);

it('an idle writer kill -9ed: a third process started later, and the one already waiting, share no role; one takes over at once', async () => {
  await freshFile();
  const { writer, other } = await writerAndStandBy([child('idle-0'), child('idle-1')]);
  const third = child('idle-2');
  await third.ready;
  await writer.kill();
  const killedAt = writer.killedAt as number;
  const { leaseUntil } = await lease();
  // The writer change each child reports (its time is what is measured), not a direct ask, which can answer first.
  await waitFor(
    'a stand-by to report it became the writer',
    () => [other, third].some((c) => c.writerChanges.some((w) => w.writer)),
    { timeoutMs: 30_000 },
  );
  const became = Math.min(
    ...[other, third].flatMap((c) => c.writerChanges.filter((w) => w.writer).map((w) => w.at)),
  );
  expect(became - killedAt).toBeLessThan(5_000);
  expect(became).toBeLessThan((leaseUntil as number) - 5_000);
  // Exactly one of the two took it, and it handles what the other dispatches.
  const roles = await Promise.all([other, third].map(isWriter));
  expect(roles.filter(Boolean).length).toBe(1);
  const dispatcher = roles[0] ? third : other;
  await dispatcher.call({ cmd: 'dispatchMany', source: 'z', count: 50, loops: 5 });
  expect(await dispatcher.call({ cmd: 'waitForQueue' })).toBe(50);
  expect(await foldReport(file)).toEqual(expectedFold({ z: 50 }));
}, 90_000);

it('a frozen writer (SIGSTOP) keeps its OS lock: the stand-by takes over once the lease ran out, and the thawed one steps back', async () => {
  await freshFile();
  const LEASE_MS = 2_000;
  const { writer, other } = await writerAndStandBy([
    child('frozen-0', { ES_LEASE_MS: String(LEASE_MS) }),
    child('frozen-1', { ES_LEASE_MS: String(LEASE_MS) }),
  ]);
  await other.call({ cmd: 'dispatchMany', source: 'x', count: 50, loops: 5 });
  expect(await other.call({ cmd: 'waitForQueue' })).toBe(50);
  writer.process.kill('SIGSTOP');
  try {
    const { leaseUntil } = await lease();
    await waitFor('the stand-by to be the writer', () => other.writerChanges.some((w) => w.writer), {
      timeoutMs: 30_000,
    });
    expect(other.writerChanges.find((w) => w.writer)?.at).toBeGreaterThanOrEqual(leaseUntil as number);
    await other.call({ cmd: 'dispatchMany', source: 'y', count: 50, loops: 5 });
  } finally {
    writer.process.kill('SIGCONT');
  }
  await waitFor('one writer after the thaw', async () => {
    const roles = await Promise.all([writer, other].map(isWriter));
    return roles.filter(Boolean).length === 1;
  });
  await other.call({ cmd: 'dispatchMany', source: 'z', count: 50, loops: 5 });
  expect(await other.call({ cmd: 'waitForQueue' })).toBe(150);
  expect(await foldReport(file)).toEqual(expectedFold({ x: 50, y: 50, z: 50 }));
}, 90_000);
