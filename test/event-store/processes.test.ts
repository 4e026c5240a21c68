/**
 * The event store across processes on the real PostgreSQL (SQLite's lease:
 * processes-sqlite.test.ts): child processes
 * (test/fixtures/event-store-process.ts) dispatch, wait, act as operators
 * and compete to be the one writer, and get SIGKILLed; the outcome is read
 * from the database: every event applied exactly once (a fold per source,
 * one entry row per event stamped with the writer's pid), versions gap-free,
 * one writer at a time.
 *
 * ES_PROCS_EVENTS (events per dispatcher in the first test, default 1,000)
 * and ES_PROCS_KILLS (writers killed in the second, default 3) make them
 * bigger: `npm run test:chaos` runs 5,000 and 8.
 */
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreEventRowEntity, StoreStateRowEntity } from '../../src/event-store/index.js';
import {
  ADDED,
  type Added,
  amountOf,
  EntryEntity,
  FAIL,
  PROCESS_ENTITIES,
  TallyEntity,
} from '../fixtures/event-store-process-models.js';
import { advisoryLockHolders } from '../helpers/advisory-lock-holders.js';
import { type StoreChild, spawnStoreChild, storeChildren } from '../helpers/event-store-child.js';
import { expectedFold, foldReport, writerRuns } from '../helpers/event-store-fold.js';
import { closeSchema, openSchema, PG } from '../helpers/postgres.js';
import { waitFor, waitForProgress } from '../helpers/wait-for.js';

const SCHEMA = 'commitbus_test_es_procs';
const LABEL = 'es-procs:';
const EVENTS = Number(process.env.ES_PROCS_EVENTS ?? 1_000);
const KILLS = Number(process.env.ES_PROCS_KILLS ?? 3);
const children = storeChildren();
let db: DataSource;

beforeAll(async () => {
  db = await openSchema(SCHEMA, PROCESS_ENTITIES);
});
beforeEach(async () => {
  const entities: EntityTarget<ObjectLiteral>[] = [
    StoreEventRowEntity,
    StoreStateRowEntity,
    TallyEntity,
    EntryEntity,
  ];
  for (const entity of entities) await db.getRepository(entity).clear();
});
afterAll(() => closeSchema(db));

/** A child on the test schema; `ES_START: '1'` makes it compete to be the writer. */
function child(name: string, env: Record<string, string> = {}) {
  const spawned = spawnStoreChild(`${LABEL}${name}`, {
    ES_DB: 'postgres',
    ES_PG: JSON.stringify({ ...PG, username: PG.user }),
    ES_SCHEMA: SCHEMA,
    ...env,
  });
  children.push(spawned);
  return spawned;
}

const added = (source: string, seq: number): Added => ({ source, seq, amount: amountOf(seq) });
const isWriter = async (c: StoreChild) => (await c.call<{ isWriter: boolean }>({ cmd: 'status' })).isWriter;

const lockHolders = () => advisoryLockHolders(db, LABEL);

async function holder(): Promise<string | undefined> {
  const holders = await lockHolders();
  if (holders.length > 1) throw new Error(`two writers hold the lock: ${JSON.stringify(holders)}`);
  return holders[0]?.label;
}

/** Resolves once every queued event is handled, as long as the handled version keeps moving. */
function settled(what: string) {
  return waitForProgress(
    what,
    async () => {
      const { queued, handled } = await foldReport(db);
      return queued - handled;
    },
    { stallMs: 10_000, timeoutMs: 60_000, describe: () => foldReport(db) },
  );
}

describe('event store across processes on PostgreSQL', () => {
  it(
    'two processes dispatch concurrently while a third handles: every event applied once, versions 1..2N gap-free',
    async () => {
      const writer = child('writer', { ES_START: '1' });
      const a = child('dispatcher-a');
      const b = child('dispatcher-b');
      await Promise.all([writer.ready, a.ready, b.ready]);
      await waitFor('the writer to be the writer', () => isWriter(writer));

      const [va, vb] = await Promise.all([
        a.call<number[]>({ cmd: 'dispatchMany', source: 'a', count: EVENTS, loops: 10 }),
        b.call<number[]>({ cmd: 'dispatchMany', source: 'b', count: EVENTS, loops: 10 }),
      ]);
      // The two processes took disjoint versions that together are 1..2N.
      expect([...va, ...vb].sort((x, y) => x - y)).toEqual(
        Array.from({ length: 2 * EVENTS }, (_, i) => i + 1),
      );

      expect(await a.call<number>({ cmd: 'waitForQueue' })).toBe(2 * EVENTS);
      expect(await foldReport(db)).toEqual(expectedFold({ a: EVENTS, b: EVENTS }));
      expect(await writerRuns(db)).toEqual([{ pid: writer.pid, from: 1, to: 2 * EVENTS }]);
    },
    30_000 + EVENTS * 10,
  );

  it(
    `SIGKILL of the writer mid-batch, ${KILLS} times: a standing-by process takes over at the next unhandled version, every event applied once`,
    async () => {
      const candidates = Array.from({ length: KILLS + 1 }, (_, i) =>
        child(`candidate-${i}`, { ES_START: '1', ES_BATCH_SIZE: '50' }),
      );
      const dispatchers = [child('dispatcher-1'), child('dispatcher-2')];
      await Promise.all([...candidates, ...dispatchers].map((c) => c.ready));
      const byLabel = new Map(candidates.map((c) => [c.label, c]));
      // Enough for every kill to land in a batch (each writer commits one first) and a stretch after.
      const each = KILLS * 60;
      const dispatching = Promise.all(
        dispatchers.map((d, i) =>
          d.call<number[]>({ cmd: 'dispatchMany', source: `k${i + 1}`, count: each, loops: 10, ms: 1 }),
        ),
      );

      const killed: { child: StoreChild; handledBefore: number }[] = [];
      for (let kill = 0; kill < KILLS; kill++) {
        let current: StoreChild | undefined;
        let from = 0;
        await waitFor('a writer that is not killed yet', async () => {
          current = byLabel.get((await holder()) ?? '');
          return current !== undefined && current.killedAt === undefined;
        });
        from = (await foldReport(db)).handled;
        // Killed only once it has committed a batch of its own and is inside the next one.
        await waitFor(
          `${current?.label} to commit a batch and be inside another`,
          async () => {
            const [h] = await lockHolders();
            const { handled, queued } = await foldReport(db);
            return (
              h?.label === current?.label && h?.inTransaction === true && handled > from && handled < queued
            );
          },
          { timeoutMs: 20_000, intervalMs: 5 },
        );
        const handledBefore = (await foldReport(db)).handled;
        await current?.kill();
        killed.push({ child: current as StoreChild, handledBefore });
      }
      expect((await dispatching).flat().length).toBe(2 * each);
      await settled('the last writer to handle everything');

      expect(await foldReport(db)).toEqual(expectedFold({ k1: each, k2: each }));
      // The versions fall into one stretch per writer, in the order they held the lock: each killed
      // writer's last committed batch is where the next began, and the next took over after the kill.
      const runs = await writerRuns(db);
      expect(runs.map((r) => r.pid).slice(0, KILLS)).toEqual(killed.map((k) => k.child.pid));
      expect(runs.length).toBe(KILLS + 1);
      const byPid = new Map(candidates.map((c) => [c.pid, c]));
      for (const [i, { child: dead, handledBefore }] of killed.entries()) {
        expect(runs[i]?.to).toBeGreaterThanOrEqual(handledBefore);
        const next = byPid.get(runs[i + 1]?.pid as number);
        expect(next?.writerChanges.find((w) => w.writer)?.at).toBeGreaterThanOrEqual(dead.killedAt as number);
      }
    },
    60_000 + KILLS * 10_000,
  );

  it("the writer's connection cut mid-batch (pg_terminate_backend), 3 times: it steps back alive, the lock goes to whoever takes it, every event applied once", async () => {
    const rivals = [0, 1].map((i) => child(`cut-${i}`, { ES_START: '1', ES_BATCH_SIZE: '50' }));
    const dispatcher = child('dispatcher');
    await Promise.all([...rivals, dispatcher].map((c) => c.ready));
    const dispatching = dispatcher.call({ cmd: 'dispatchMany', source: 'cut', count: 300, loops: 10, ms: 1 });
    for (let cut = 0; cut < 3; cut++) {
      const from = (await foldReport(db)).handled;
      let backend: number | undefined;
      await waitFor(
        'a writer that committed a batch since the last cut and is inside another',
        async () => {
          const [h] = await lockHolders();
          const { handled, queued } = await foldReport(db);
          backend = h?.backend;
          return h?.inTransaction === true && handled > from && handled < queued;
        },
        { timeoutMs: 20_000, intervalMs: 5 },
      );
      await db.query('SELECT pg_terminate_backend($1)', [backend]);
    }
    await dispatching;
    await settled('the writers to handle everything');
    expect(await foldReport(db)).toEqual(expectedFold({ cut: 300 }));
    for (const rival of rivals) expect(rival.process.exitCode).toBeNull();
    const logs = rivals.map((r) => r.stderr()).join('');
    expect(logs.match(/stepping back and trying again/g)?.length).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('a process that is not the writer waits for versions and the queue, learns of a halt, and skips the halted event', async () => {
    const writer = child('writer', { ES_START: '1' });
    await writer.ready;
    await waitFor('the writer to be the writer', () => isWriter(writer));
    const standby = child('standby', { ES_START: '1' });
    const client = child('client');
    await Promise.all([standby.ready, client.ready]);

    const first = await standby.call<{ v: number; status: string }>({
      cmd: 'dispatch',
      type: ADDED,
      data: added('s', 1),
      wait: true,
    });
    expect(first).toMatchObject({ v: 1, status: 'handled' });
    expect(await db.getRepository(EntryEntity).findOneBy({ id: 's:1' })).toMatchObject({ pid: writer.pid });

    const versions = await client.call<number[]>({ cmd: 'dispatchMany', source: 'c', count: 20, loops: 4 });
    const last = versions.at(-1) as number;
    expect(await standby.call({ cmd: 'handledVersion', v: last })).toMatchObject({
      v: last,
      status: 'handled',
    });
    await client.call({ cmd: 'dispatchMany', source: 'c2', count: 30, loops: 1 });
    const waitedFor = await standby.call<number>({ cmd: 'waitForQueue' });
    expect(waitedFor).toBe(51);
    expect((await foldReport(db)).handled).toBeGreaterThanOrEqual(51);

    // A failing event halts the writer: in other processes, the dispatch waiting for it rejects, and so
    // does waitForQueue; a wait for a later event goes on waiting.
    const failing = { ms: 300 };
    await expect(
      client.call({ cmd: 'dispatch', type: FAIL, data: failing, wait: true }),
    ).rejects.toMatchObject({ name: 'EventStoreHaltedError' });
    const halted = await standby.call<{ v: number; attempts: number; error: { message: string } }>({
      cmd: 'halted',
    });
    expect(halted).toMatchObject({ v: 52, error: { message: 'PROC.FAIL always fails' } });
    expect(halted.attempts).toBeGreaterThanOrEqual(1);
    const after = await standby.call<{ v: number }>({
      cmd: 'dispatch',
      type: ADDED,
      data: added('s', 2),
      wait: false,
    });
    const later = standby.call({ cmd: 'handledVersion', v: after.v });
    later.catch(() => {});
    await expect(client.call({ cmd: 'waitForQueue' })).rejects.toMatchObject({
      name: 'EventStoreHaltedError',
    });
    expect((await foldReport(db)).handled).toBe(51);

    // The client, which never started its store, skips it while the writer is inside a retry
    // of it (300 ms long): the writer goes on, and that retry's failure is not recorded.
    await waitFor(
      'the writer to be inside a retry',
      async () => (await lockHolders())[0]?.inTransaction === true,
      {
        intervalMs: 5,
      },
    );
    const skipped = await client.call<{ attempts: number }>({ cmd: 'skip', v: 52 });
    expect(skipped).toMatchObject({ v: 52, status: 'skipped' });
    await waitFor(
      'the writer to go on past the skipped event',
      async () => (await foldReport(db)).handled === 53,
      {
        describe: () => foldReport(db),
      },
    );
    await expect(later).resolves.toMatchObject({ v: 53, status: 'handled' });
    expect(await client.call({ cmd: 'handledVersion', v: after.v })).toMatchObject({ v: 53 });
    const [row] = await standby.call<{ attempts: number; status: string }[]>({
      cmd: 'history',
      from: 52,
      to: 52,
    });
    expect(row).toMatchObject({ status: 'skipped', attempts: skipped.attempts });
    expect(writer.stderr().match(/event store halted at v52/g)?.length).toBe(skipped.attempts);
    expect(await foldReport(db)).toEqual(expectedFold({ s: 2, c: 20, c2: 30 }, { skipped: 1 }));
    expect(await writerRuns(db)).toEqual([{ pid: writer.pid, from: 1, to: 53 }]);
    expect(standby.writerChanges).toEqual([]);
  }, 60_000);

  it('three processes started: exactly one writer at a time; SIGKILL releases the advisory lock to another', async () => {
    const three = [0, 1, 2].map((i) => child(`rival-${i}`, { ES_START: '1', ES_TAKEOVER_MS: '20' }));
    await Promise.all(three.map((c) => c.ready));
    const alive = () => three.filter((c) => c.killedAt === undefined);
    const checkOneWriter = async () => {
      for (let round = 0; round < 20; round++) {
        const holders = await lockHolders();
        const writers = await Promise.all(alive().map(isWriter));
        expect(holders.length).toBe(1);
        expect(
          alive()
            .filter((_, i) => writers[i])
            .map((c) => c.label),
        ).toEqual([holders[0]?.label]);
      }
    };
    for (let kill = 0; kill < 2; kill++) {
      await waitFor('one of the live processes to hold the lock', async () => {
        const label = await holder();
        return alive().some((c) => c.label === label);
      });
      await waitFor('its store to say so', async () =>
        (await Promise.all(alive().map(isWriter))).includes(true),
      );
      await checkOneWriter();
      const [before] = await lockHolders();
      const writer = three.find((c) => c.label === before?.label) as StoreChild;
      await writer.kill();
      await waitFor('the killed backend to let the lock go', async () =>
        (await lockHolders()).every((h) => h.backend !== before?.backend),
      );
    }
    await waitFor('the last one to be the writer', () => isWriter(alive()[0] as StoreChild));
    await checkOneWriter();
    // Nobody became the writer while another live process was it.
    const spans = three.flatMap((c) => {
      const from = c.writerChanges.find((w) => w.writer)?.at;
      if (from === undefined) return [];
      return [{ label: c.label, from, to: c.killedAt ?? Number.POSITIVE_INFINITY }];
    });
    expect(spans.length).toBe(3);
    spans.sort((x, y) => x.from - y.from);
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]?.from).toBeGreaterThanOrEqual(spans[i - 1]?.to as number);
  }, 60_000);

  it('a dispatch inside a unit of work of a process killed before commit queues nothing and leaves no gap', async () => {
    const writer = child('writer', { ES_START: '1' });
    const a = child('uow-a');
    const b = child('dispatcher-b');
    await Promise.all([writer.ready, a.ready, b.ready]);
    expect(await b.call({ cmd: 'dispatch', type: ADDED, data: added('b', 1), wait: true })).toMatchObject({
      v: 1,
    });

    expect(await a.call({ cmd: 'hangInUnitOfWork', type: ADDED, data: added('a', 1) })).toBe('hanging');
    const next = b.call<{ v: number }>({ cmd: 'dispatch', type: ADDED, data: added('b', 2), wait: false });
    // b's dispatch waits on the queue row, which a's open transaction holds.
    await waitFor('b to wait for a lock', async () => {
      const rows: unknown[] = await db.query(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
        [b.label],
      );
      return rows.length > 0;
    });
    await a.kill();
    expect(await next).toMatchObject({ v: 2 });
    await b.call({ cmd: 'waitForQueue' });
    expect(await foldReport(db)).toEqual(expectedFold({ b: 2 }));
  }, 60_000);
});
