/**
 * Ordering under concurrency: three producer processes commit thousands of
 * units of work over hundreds of items, each bumping an item's version and
 * sending an event ordered by the item, through the outbox; four worker
 * processes with a short lease handle them while a random one is SIGKILLed
 * every few hundred milliseconds and restarted. Afterwards, for every item,
 * each handler saw exactly the committed sequence of versions (at-least-once
 * handlers may repeat the event a killed worker was on, never anything else),
 * `seq` grows and every `prev` is the `seq` before it, a redelivered event
 * keeps its `seq` and `prev`, nothing is missing, and nothing is left in the
 * outbox or the lanes.
 *
 * `npm test` runs ORDERING_EVENTS=2000 units of work; `npm run test:chaos` more.
 * Env knobs: ORDERING_EVENTS (units of work), ORDERING_KEYS (items),
 * ORDERING_KILL_MIN_MS / ORDERING_KILL_MAX_MS (time between kills),
 * ORDERING_MIN_UPTIME_MS (no worker killed sooner after it is ready),
 * ORDERING_PUBLISH_TIMEOUT_MS / ORDERING_SETTLE_TIMEOUT_MS (bounds of the two
 * phases), ORDERING_STALL_MS (how long the handled count may stand still).
 */
import type { DataSource } from 'typeorm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  itemKey,
  ORDERING_ENTITIES,
  ORDERING_HANDLERS,
  OrdCommit,
  OrdItem,
} from '../fixtures/ordering-app.js';
import { leftovers } from '../helpers/chaos-report.js';
import { chaosTestBed } from '../helpers/chaos-test-bed.js';
import {
  checkOrdering,
  formatOrderingReport,
  lanesOfWorker,
  lanesWithEvents,
  loadOrderingData,
  orderingLeftovers,
} from '../helpers/ordering-report.js';
import { waitForProgress } from '../helpers/wait-for.js';

const UNITS = Number(process.env.ORDERING_EVENTS ?? 2_000);
const KEYS = Number(process.env.ORDERING_KEYS ?? 200);
const LARGE = UNITS > 5_000;
const PRODUCERS = 3;
const WORKERS = 4;
const KILL_MIN_MS = Number(process.env.ORDERING_KILL_MIN_MS ?? 300);
const KILL_MAX_MS = Number(process.env.ORDERING_KILL_MAX_MS ?? 800);
// A worker is killed only after it has handled events for a while: killed
// sooner, it would do little but start up and take lanes over, and the
// events would all be handled after the kills stop.
const MIN_UPTIME_MS = Number(process.env.ORDERING_MIN_UPTIME_MS ?? 1_000);
// Generous bounds: reaching them means something is stuck, not slow (the machine may be shared).
const PUBLISH_TIMEOUT_MS = Number(process.env.ORDERING_PUBLISH_TIMEOUT_MS ?? (LARGE ? 900_000 : 180_000));
const SETTLE_TIMEOUT_MS = Number(process.env.ORDERING_SETTLE_TIMEOUT_MS ?? (LARGE ? 600_000 : 180_000));
// Once the kills stop, every lease lapses within seconds: a count that does not go down for this long is stuck.
const STALL_MS = Number(process.env.ORDERING_STALL_MS ?? 20_000);

const bed = chaosTestBed({
  name: 'ordering',
  entities: ORDERING_ENTITIES,
  fixtures: { publisher: 'ordering-producer.ts', worker: 'ordering-worker.ts' },
});
const { names, redis } = bed;
beforeAll(() =>
  bed.dataSource
    .getRepository(OrdItem)
    .insert(Array.from({ length: KEYS }, (_, i) => ({ key: itemKey(i), version: 0 }))),
);

/** What is left to do, in PostgreSQL and Redis: all zero once every event is handled by every handler. */
async function unfinished(db: DataSource) {
  const [committed, recorded] = await Promise.all([
    db.getRepository(OrdCommit).count(),
    db.getRepository(ORDERING_HANDLERS[0]!.table).count(),
  ]);
  return {
    ...(await leftovers(db, redis, names)),
    ...(await orderingLeftovers(redis, names)),
    notRecordedByIdempotentHandler: committed - recorded,
  };
}

/** One number that reaches 0 once nothing is left and goes down as work is done. */
function remainingWork(left: Record<string, number>): number {
  return Object.values(left).reduce((sum, n) => sum + Math.abs(n), 0);
}

describe('ordering under concurrency: producers, workers SIGKILLed at random', () => {
  it(
    `${UNITS} units of work over ${KEYS} items: every handler sees each item's committed sequence, seq/prev chained, nothing missing`,
    async () => {
      const startedAt = Date.now();
      const db = bed.dataSource;
      const lanesTakenOver = { sync: 0, async: 0 };
      const processes = bed.cluster(
        { ORDERING_EVENTS: String(UNITS), ORDERING_KEYS: String(KEYS) },
        {
          publishers: PRODUCERS,
          killPublishers: false,
          minUptimeMs: MIN_UPTIME_MS,
          onWorkerKilled: async (pid) => {
            for (const lane of await lanesOfWorker(redis, names, pid)) {
              lanesTakenOver[lane.startsWith('s|') ? 'sync' : 'async']++;
            }
          },
        },
      );
      await processes.start(WORKERS);
      await processes.killRandomlyUntilPublished(KILL_MIN_MS, KILL_MAX_MS, PUBLISH_TIMEOUT_MS);
      const publishSeconds = (Date.now() - startedAt) / 1_000;

      // No more kills: the workers finish the rest, however slowly, as long as they get on.
      await waitForProgress(
        'every event handled by every handler, nothing left in the outbox or the lanes',
        async () => (processes.hasProblems ? 0 : remainingWork(await unfinished(db))),
        {
          stallMs: STALL_MS,
          timeoutMs: SETTLE_TIMEOUT_MS,
          describe: async () => ({
            ...(await unfinished(db)),
            ...processes.counts,
            lanes: await lanesWithEvents(redis, names),
          }),
        },
      );
      processes.check();

      const report = checkOrdering(await loadOrderingData(db));
      const counts = processes.counts;
      console.log(
        formatOrderingReport(report, counts, {
          units: UNITS,
          producers: PRODUCERS,
          workers: WORKERS,
          publishSeconds,
          seconds: (Date.now() - startedAt) / 1_000,
          lanesTakenOver,
        }),
      );

      expect(report.problems).toEqual([]);
      // Everything happened that the test is about.
      expect(report.committed).toBeGreaterThan(UNITS / 2);
      expect(report.rolledBack).toBeGreaterThan(0);
      expect(report.keysChanged).toBeGreaterThan(Math.min(KEYS, UNITS) / 2);
      expect(counts.workersKilled).toBeGreaterThan(0);
      expect(lanesTakenOver.sync).toBeGreaterThan(0);
      expect(await unfinished(db)).toEqual({
        outboxRows: 0,
        streamLength: 0,
        pendingEntries: 0,
        delayedEvents: 0,
        unfinishedJobs: 0,
        orderedPending: 0,
        lanesWithEvents: 0,
        haltedLanes: 0,
        retryingLanes: 0,
        notRecordedByIdempotentHandler: 0,
      });

      // After all that, workers still shut down cleanly on SIGTERM.
      const exits = await processes.stopWorkers();
      for (const { label, exit, stderr } of exits) {
        expect(exit, `${label}: ${stderr}`).toEqual({ code: 0, signal: null });
      }
    },
    PUBLISH_TIMEOUT_MS + SETTLE_TIMEOUT_MS + 30_000,
  );
});
