/**
 * The event store across processes on a SQLite file: two child processes
 * (test/fixtures/event-store-process.ts) share the file, one dispatching
 * while the other handles; the writer holds a lease row, keeps it while the
 * other writes the file too, and when SIGKILLed in the middle of a batch
 * (holding SQLite's write lock) the other takes over as soon as the dead
 * writer's OS lock is gone, before its lease has run out, after the dead
 * batch was rolled back (test/event-store/takeover-sqlite.test.ts times it).
 * Outcomes are read from the file.
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

// Longer than a batch's wait for SQLite's write lock on a loaded machine (the
// lease is renewed between batches); the takeover does not wait for it.
const LEASE_MS = 10_000;
const children = storeChildren();
let dir: string;
let file: DataSource;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'es-procs-'));
  file = await new DataSource({
    type: 'better-sqlite3',
    database: join(dir, 'store.sqlite'),
    entities: [...PROCESS_ENTITIES, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
});
afterAll(async () => {
  await file?.destroy();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function child(name: string): StoreChild {
  const spawned = spawnStoreChild(`es-procs-sqlite:${name}`, {
    ES_DB: 'sqlite',
    ES_SQLITE_FILE: join(dir, 'store.sqlite'),
    ES_START: '1',
    ES_LEASE_MS: String(LEASE_MS),
    ES_BATCH_SIZE: '20',
  });
  children.push(spawned);
  return spawned;
}

const isWriter = async (c: StoreChild) => (await c.call<{ isWriter: boolean }>({ cmd: 'status' })).isWriter;
const lease = () => file.getRepository(StoreStateRowEntity).findOneByOrFail({ id: 'writer' });

it('one writer by lease, kept while the other process dispatches; SIGKILLed mid-batch, the other takes over before the lease ran out', async () => {
  const pair = [child('lease-0'), child('lease-1')];
  await Promise.all(pair.map((c) => c.ready));
  let writers: boolean[] = [];
  await waitFor('one of them to be the writer', async () => {
    writers = await Promise.all(pair.map(isWriter));
    return writers.includes(true);
  });
  expect(writers.filter(Boolean).length).toBe(1);
  const writer = pair[writers.indexOf(true)] as StoreChild;
  const other = pair[writers.indexOf(false)] as StoreChild;
  expect((await lease()).writer).toContain(`:${writer.pid}:`);

  // The other dispatches while the writer handles: both write the file.
  await other.call({ cmd: 'dispatchMany', source: 'x', count: 400, loops: 20 });
  expect(await other.call({ cmd: 'waitForQueue' })).toBe(400);
  // The writer kept the role: it never stepped back, the other never took it.
  const roles = { writer: writer.writerChanges.map((w) => w.writer), other: other.writerChanges };
  expect(roles, `the writer's log: ${writer.stderr()}`).toEqual({ writer: [true], other: [] });
  expect((await lease()).writer).toContain(`:${writer.pid}:`);
  expect(await writerRuns(file)).toEqual([{ pid: writer.pid, from: 1, to: 400 }]);

  // Slow events (5 ms each, 20 a batch): killed while it handles them.
  const more = other.call({ cmd: 'dispatchMany', source: 'y', count: 200, loops: 5, ms: 5 });
  await waitFor(
    'the writer to be part-way through them',
    async () => {
      const { handled } = await foldReport(file);
      return handled > 420 && handled < 560;
    },
    { intervalMs: 5, timeoutMs: 20_000 },
  );
  await writer.kill();
  const { leaseUntil, handled: handledAtKill } = await lease();
  await more;
  await waitFor('the other to be the writer', () => other.writerChanges.some((w) => w.writer));
  expect(await other.call({ cmd: 'waitForQueue' })).toBe(600);

  // It took the role without waiting for the dead writer's lease to run out.
  const became = other.writerChanges.find((w) => w.writer)?.at as number;
  expect(became).toBeLessThan(leaseUntil as number);
  expect((await lease()).writer).toContain(`:${other.pid}:`);
  expect(await foldReport(file)).toEqual(expectedFold({ x: 400, y: 200 }));
  const runs = await writerRuns(file);
  expect(runs.map((r) => r.pid)).toEqual([writer.pid, other.pid]);
  // The dead writer's last batch was rolled back: the other went on right after its last commit.
  expect(runs[0]?.to).toBe(handledAtKill);
  expect(runs[1]).toEqual({ pid: other.pid, from: handledAtKill + 1, to: 600 });
}, 60_000);
