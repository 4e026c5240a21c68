/**
 * Attack: one event whose handler kills its process (`process.exit`), among
 * healthy ones, on the two paths whose deliveries are not counted yet (the
 * stream's drains and ordered lanes). Whatever the killer itself comes to,
 * the healthy events next to it must be handled, each run again at most once
 * per crash of the killer's (`MAX_DELIVERIES`), and never given up for a
 * crash that was not theirs. Real worker processes that really exit
 * (test/fixtures/attack-worker.ts); each run is counted in Redis before the
 * handler does anything else.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Event } from '../../src/index.js';
import { LaneEvent, laneEvent } from '../helpers/attack-events.js';
import { fastConfig } from '../helpers/buses.js';
import { childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const ATTACK_WORKER = fileURLToPath(new URL('../fixtures/attack-worker.ts', import.meta.url));
const { prefix: PREFIX, redis, buses } = redisTestBed('attack-killers');
const children = childWorkers();

/** Crashes the killer may cause before it is given up. */
const MAX_DELIVERIES = 2;

/** More worker processes than those crashes need. */
const SPAWNS = MAX_DELIVERIES + 3;

/**
 * Runs workers one after another, a new one each time one dies, until every
 * healthy event has run at least once (the last worker then stays up) or
 * {@link SPAWNS} workers were used. Resolves to the runs of each event id.
 */
async function runWorkers(
  env: Record<string, string>,
  healthy: readonly Event[],
): Promise<Map<string, number>> {
  const runs = async () => {
    const counts = new Map<string, number>();
    for (const id of await redis.lrange(env.RUNS_KEY as string, 0, -1))
      counts.set(id, (counts.get(id) ?? 0) + 1);
    return counts;
  };
  const allRan = async () => {
    const counts = await runs();
    return healthy.every((e) => (counts.get(e.id) ?? 0) > 0);
  };
  for (let spawned = 0; spawned < SPAWNS && !(await allRan()); spawned++) {
    const worker = spawnWorker(env, ATTACK_WORKER);
    children.push(worker);
    const died = worker.exited.then(() => true);
    const done = waitFor('every healthy event to run', allRan, { timeoutMs: 15_000 }).then(
      () => false,
      () => false,
    );
    await Promise.race([died, done]);
  }
  return runs();
}

/**
 * `recid×runs` for the events that never ran, or ran more often than once
 * plus once per crash the killer may cause.
 */
function outOfBounds(events: readonly (Event & { recid: string })[], runs: Map<string, number>): string[] {
  return events
    .map((e) => [e.recid, runs.get(e.id) ?? 0] as const)
    .filter(([, n]) => n < 1 || n > 1 + MAX_DELIVERIES)
    .map(([recid, n]) => `${recid}×${n}`);
}

/** Longest a test may take: up to {@link SPAWNS} workers, each spawned and waited for up to 15 s. */
const TEST_TIMEOUT_MS = 90_000;

describe('a handler that kills its process, among healthy events', { timeout: TEST_TIMEOUT_MS }, () => {
  it('on the stream: the other events of its batch are handled, each run a bounded number of times, and not given up', async () => {
    const name = 'stream';
    const env = {
      PREFIX,
      BUS_NAME: name,
      RUNS_KEY: `${PREFIX}:${name}:runs`,
      ...redisEnv(),
      KILL_RECID: 'killer',
      BATCH_SIZE: '20',
      // Long enough that a loaded machine never takes an entry from a live drain (which would
      // count a delivery the healthy event did not crash), short enough to keep the test quick.
      CLAIM_STALE_AFTER_MS: '1500',
      LOCK_DURATION_MS: '1000',
      MAX_DELIVERIES: String(MAX_DELIVERIES),
    };
    const publisher = buses.create({
      events: TEST_EVENTS,
      config: fastConfig({ prefix: PREFIX, name }),
      transport: testRedis(),
    });
    const before = Array.from({ length: 5 }, (_, i) => recordCreated(`before-${i}`));
    const killer = recordCreated('killer');
    const after = Array.from({ length: 5 }, (_, i) => recordCreated(`after-${i}`));
    // One batch: the killer in the middle.
    await publisher.publish([...before, killer, ...after]);

    const runs = await runWorkers(env, [...before, ...after]);

    // Today every crash re-runs the batch from its start: before-* run once per
    // worker that died (×5), after-* never run (×0).
    expect(outOfBounds([...before, ...after], runs)).toEqual([]);
    const letters = await publisher.deadLetters.list();
    expect(letters.filter((l) => l.eventId !== killer.id).map((l) => [l.eventId, l.reason])).toEqual([]);
  });

  it('in ordered lanes: the other keys are handled in order, each event run a bounded number of times, and none of them halts', async () => {
    const name = 'lanes';
    const env = {
      PREFIX,
      BUS_NAME: name,
      RUNS_KEY: `${PREFIX}:${name}:runs`,
      ...redisEnv(),
      KILL_RECID: 'A-1',
      // The lanes' lease: as above, a live worker must keep its lanes on a loaded machine.
      LOCK_DURATION_MS: '1500',
      MAX_DELIVERIES: String(MAX_DELIVERIES),
    };
    const publisher = buses.create({
      events: [...TEST_EVENTS, LaneEvent],
      config: fastConfig({ prefix: PREFIX, name }),
      transport: testRedis(),
    });
    const lane = (key: string) => [0, 1, 2].map((n) => laneEvent(key, n));
    const [a, b, c] = [lane('A'), lane('B'), lane('C')];
    await publisher.publish([...a, ...b, ...c]);

    const runs = await runWorkers(env, [...b, ...c]);

    // Today B-1 and C-1, in flight beside A-1 each time it kills the worker,
    // run once per crash, and B-2 and C-2 never run: one key's killer stops every key.
    expect(outOfBounds([...b, ...c, a[0] as LaneEvent], runs)).toEqual([]);
    // Each key's events first ran in order.
    const log = await redis.lrange(env.RUNS_KEY, 0, -1);
    for (const key of [b, c]) {
      const firstRuns = key.map((e) => log.indexOf(e.id));
      expect(firstRuns).toEqual([...firstRuns].sort((x, y) => x - y));
    }
    const halted = await publisher.ordering.halted();
    expect(halted.map((h) => h.key).filter((key) => key !== 'lane:A')).toEqual([]);
  });
});
