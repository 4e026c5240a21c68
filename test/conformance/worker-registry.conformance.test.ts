/**
 * The `WorkerRegistry` port's contract (src/handlers/worker-registry.ts),
 * run against every adapter in ./adapters.ts through the registry its
 * transport opens: a beat stores every field and the store's clock; the
 * latest beat of an id wins; a leave forgets; a list is newest first, on
 * the store's clock, and removes records past the retention; buses are
 * apart. (What a worker beats, and `bus.status().workers`, is
 * test/bus/worker-beats.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { WorkerBeat, WorkerRegistry } from '../../src/handlers/worker-registry.js';
import { waitFor } from '../helpers/wait-for.js';
import { adaptersFor } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-workers');

const HOUR = 3_600_000;

function beatOf(id: string, fields: Partial<WorkerBeat> = {}): WorkerBeat {
  return {
    id,
    host: 'host-a.example',
    pid: 4242,
    version: '1.2.3',
    transport: 'redis',
    concurrency: 20,
    busy: 0,
    // Long ago, so a lastBeatAt copied from it would show.
    startedAt: new Date(Date.UTC(2026, 0, 1, 10, 0, 0, 123)),
    ...fields,
  };
}

/** Waits until the store's clock has moved past `at`, so the next beat is stamped later. */
async function clockPast(workers: WorkerRegistry, at: Date, byMs = 1): Promise<void> {
  await waitFor(`the store's clock past ${at.toISOString()}`, async () => {
    const { now } = await workers.list(HOUR);
    return now.getTime() >= at.getTime() + byMs;
  });
}

describe.each(adaptersFor('workers'))('WorkerRegistry on $name', (adapter) => {
  it("stores every field of a beat and stamps it with the store's clock", async () => {
    const workers = bed.open(adapter).transport.workers;
    const before = Date.now();
    await workers.beat(beatOf('w-1', { busy: 3, transport: 'sql-postgres', host: 'h é', pid: 7 }));
    const { now, workers: listed } = await workers.list(HOUR);
    expect(listed).toHaveLength(1);
    const [record] = listed;
    expect(record).toEqual({
      ...beatOf('w-1', { busy: 3, transport: 'sql-postgres', host: 'h é', pid: 7 }),
      lastBeatAt: expect.any(Date),
    });
    // The store's clock is this machine's here: the stamp is of now, not of the worker's startedAt.
    expect(Math.abs((record?.lastBeatAt.getTime() ?? 0) - before)).toBeLessThan(5_000);
    expect(now.getTime()).toBeGreaterThanOrEqual(record?.lastBeatAt.getTime() ?? Number.NaN);
  });

  it("keeps one record per id, the latest beat's", async () => {
    const workers = bed.open(adapter).transport.workers;
    await workers.beat(beatOf('w-1', { busy: 1 }));
    const first = (await workers.list(HOUR)).workers[0];
    await clockPast(workers, first?.lastBeatAt ?? new Date());
    await workers.beat(beatOf('w-1', { busy: 5, concurrency: 8 }));
    const { workers: listed } = await workers.list(HOUR);
    expect(listed.map((w) => [w.id, w.busy, w.concurrency])).toEqual([['w-1', 5, 8]]);
    expect(listed[0]?.lastBeatAt.getTime()).toBeGreaterThan(first?.lastBeatAt.getTime() ?? Number.NaN);
  });

  it('lists the newest beat first', async () => {
    const workers = bed.open(adapter).transport.workers;
    await workers.beat(beatOf('a'));
    await clockPast(workers, (await workers.list(HOUR)).workers[0]?.lastBeatAt ?? new Date());
    await workers.beat(beatOf('b'));
    expect((await workers.list(HOUR)).workers.map((w) => w.id)).toEqual(['b', 'a']);
    await clockPast(workers, (await workers.list(HOUR)).workers[0]?.lastBeatAt ?? new Date());
    await workers.beat(beatOf('a'));
    expect((await workers.list(HOUR)).workers.map((w) => w.id)).toEqual(['a', 'b']);
  });

  it('forgets a worker that leaves, takes an unknown id quietly, and registers one that beats again', async () => {
    const workers = bed.open(adapter).transport.workers;
    await workers.beat(beatOf('stays'));
    await workers.beat(beatOf('goes'));
    await workers.leave('goes');
    await workers.leave('never-was');
    expect((await workers.list(HOUR)).workers.map((w) => w.id)).toEqual(['stays']);
    await workers.beat(beatOf('goes'));
    expect((await workers.list(HOUR)).workers.map((w) => w.id).sort()).toEqual(['goes', 'stays']);
  });

  it('removes the records last beating longer ago than the retention', async () => {
    const workers = bed.open(adapter).transport.workers;
    await workers.beat(beatOf('old'));
    const old = (await workers.list(HOUR)).workers[0];
    await clockPast(workers, old?.lastBeatAt ?? new Date(), 300);
    await workers.beat(beatOf('fresh'));
    expect((await workers.list(200)).workers.map((w) => w.id)).toEqual(['fresh']);
    // Removed by that call, not only left out of it.
    expect((await workers.list(HOUR)).workers.map((w) => w.id)).toEqual(['fresh']);
  });

  it("keeps a bus's workers apart from another bus's", async () => {
    const first = bed.open(adapter).transport.workers;
    const second = bed.open(adapter).transport.workers;
    await first.beat(beatOf('w-1'));
    expect((await second.list(HOUR)).workers).toEqual([]);
    await second.leave('w-1');
    expect((await first.list(HOUR)).workers.map((w) => w.id)).toEqual(['w-1']);
  });
});
