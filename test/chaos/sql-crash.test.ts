/**
 * Crash test of the SQL transport, on PostgreSQL and on a SQLite file in WAL
 * mode: one publisher and three worker processes on one database, SIGKILLed
 * at random and restarted until the publisher has an outcome for every unit
 * of work; the publisher also kills itself between a commit and what runs
 * after it now and then, and on PostgreSQL the workers' connections are
 * terminated (`pg_terminate_backend`) in storms meanwhile. Each unit of work
 * commits a business row and its event in one transaction of the bus's unit
 * of work, or rolls back. Then every committed event must have been handled
 * by every handler (idempotent ones exactly once), no rolled-back event by
 * any, and the bus's events, jobs, outbox rows and dead letters must all be
 * gone. It asserts outcomes only, not which path (outbox or log) carried an
 * event.
 *
 * `npm test` runs SQL_CHAOS_EVENTS=80 per database; `npm run test:chaos`
 * runs 1,000. Env knobs: SQL_CHAOS_EVENTS, SQL_CHAOS_KILL_MIN_MS /
 * SQL_CHAOS_KILL_MAX_MS (time between kills), SQL_CHAOS_PUBLISH_TIMEOUT_MS /
 * SQL_CHAOS_SETTLE_TIMEOUT_MS (bounds of the two phases).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  killsAfterCommit,
  rollsBack,
  SQL_CHAOS_HANDLERS,
  sqlChaosConfig,
} from '../fixtures/sql-chaos-app.js';
import { bundleChaosProcesses, type ChaosBundle } from '../helpers/chaos-build.js';
import { ChaosCluster } from '../helpers/chaos-cluster.js';
import {
  openSqlChaosDatabase,
  readSqlChaosOutcome,
  type SqlChaosDatabase,
  type SqlChaosOutcome,
  sqlChaosLettersLeft,
  terminateBackends,
} from '../helpers/sql-chaos-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const EVENTS = Number(process.env.SQL_CHAOS_EVENTS ?? 80);
const LARGE = EVENTS > 500;
const KILL_MIN_MS = Number(process.env.SQL_CHAOS_KILL_MIN_MS ?? 500);
const KILL_MAX_MS = Number(process.env.SQL_CHAOS_KILL_MAX_MS ?? 1_500);
// Killed only once it has been ready this long, so each process gets work done between kills.
const MIN_UPTIME_MS = 400;
const KILL_AFTER_COMMIT_EVERY = LARGE ? 100 : 40;
const WORKERS = 3;
// Generous bounds: reaching them means something is stuck, not slow.
const PUBLISH_TIMEOUT_MS = Number(process.env.SQL_CHAOS_PUBLISH_TIMEOUT_MS ?? (LARGE ? 300_000 : 120_000));
const SETTLE_TIMEOUT_MS = Number(process.env.SQL_CHAOS_SETTLE_TIMEOUT_MS ?? (LARGE ? 120_000 : 30_000));
const BUS = String(sqlChaosConfig().name);

let bundle: ChaosBundle | undefined;
beforeAll(async () => {
  bundle = await bundleChaosProcesses({ publisher: 'sql-chaos-publisher.ts', worker: 'sql-chaos-worker.ts' });
});
afterAll(async () => {
  await bundle?.remove();
});

/** Whether every unit of work has an outcome, every handler ran for every committed event, and nothing is left. */
function finished(outcome: SqlChaosOutcome): boolean {
  const { left } = outcome;
  if (outcome.settled < EVENTS || left.events + left.jobs + left.outbox > 0) return false;
  return SQL_CHAOS_HANDLERS.every((spec) => {
    const handled = outcome.handled.get(spec.name);
    return [...outcome.committed].every((id) => (handled?.get(id) ?? 0) > 0);
  });
}

/** Until `stop()`, terminates the workers' PostgreSQL connections every 200-700 ms; resolves to how many it ended. */
async function storm(database: SqlChaosDatabase, stop: () => boolean): Promise<number> {
  let terminated = 0;
  while (!stop()) {
    await sleep(200 + Math.random() * 500);
    terminated += await terminateBackends(database.dataSource, database.workerApp).catch(() => 0);
  }
  return terminated;
}

describe.each(['postgres', 'sqlite'] as const)('SQL crash test on %s', (dialect) => {
  let database: SqlChaosDatabase | undefined;
  let cluster: ChaosCluster | undefined;
  afterAll(async () => {
    await cluster?.killAll();
    await database?.remove();
  });

  it(
    `${EVENTS} units of work with SIGKILLs${dialect === 'postgres' ? ' and terminated connections' : ''}: committed events handled (idempotent ones exactly once), rolled-back ones never, nothing left`,
    async () => {
      const startedAt = Date.now();
      database = await openSqlChaosDatabase(dialect);
      const db = database.dataSource;
      if (bundle === undefined) throw new Error('the processes are bundled in beforeAll');
      const processes = new ChaosCluster(
        bundle,
        {
          ...database.env,
          SQL_CHAOS_EVENTS: String(EVENTS),
          CHAOS_KILL_AFTER_COMMIT_EVERY: String(KILL_AFTER_COMMIT_EVERY),
        },
        { minUptimeMs: MIN_UPTIME_MS },
      );
      cluster = processes;
      await processes.start(WORKERS);
      let publishing = true;
      const storms =
        dialect === 'postgres' && database !== undefined
          ? storm(database, () => !publishing)
          : Promise.resolve(0);
      try {
        await processes.killRandomlyUntilPublished(KILL_MIN_MS, KILL_MAX_MS, PUBLISH_TIMEOUT_MS);
      } finally {
        publishing = false;
      }
      const terminated = await storms;

      // No more kills; the restarted workers and a fresh one finish the rest.
      processes.addWorker();
      await waitFor(
        'every committed event handled by every handler and the bus tables empty',
        async () => processes.hasProblems || finished(await readSqlChaosOutcome(db, BUS)),
        {
          timeoutMs: SETTLE_TIMEOUT_MS,
          intervalMs: 100,
          describe: async () => ({
            ...(await readSqlChaosOutcome(db, BUS)).left,
            ...processes.counts,
            lettersLeft: await sqlChaosLettersLeft(db, BUS),
          }),
        },
      );
      processes.check();
      const outcome = await readSqlChaosOutcome(db, BUS);
      const numbers = Array.from({ length: EVENTS }, (_, i) => i + 1);
      const summary = Object.fromEntries(
        SQL_CHAOS_HANDLERS.map((spec) => {
          const handled = outcome.handled.get(spec.name) ?? new Map<string, number>();
          const ids = [...handled.keys()];
          return [
            spec.name,
            {
              missing: [...outcome.committed].filter((id) => !handled.has(id)).length,
              notCommitted: ids.filter((id) => !outcome.committed.has(id)).length,
              rolledBackHandled: ids.filter((id) => outcome.rolledBack.has(id)).length,
              moreThanOnce: spec.idempotent ? ids.filter((id) => (handled.get(id) ?? 0) > 1).length : 0,
            },
          ];
        }),
      );
      console.log(
        `SQL crash test on ${dialect}: ${outcome.committed.size} committed, ${outcome.rolledBack.size} rolled back, ` +
          `${JSON.stringify(processes.counts)}, ${terminated} connections terminated, ` +
          `${((Date.now() - startedAt) / 1_000).toFixed(1)} s`,
      );
      expect({
        committed: outcome.committed.size,
        rolledBack: outcome.rolledBack.size,
        handlers: summary,
        left: outcome.left,
      }).toEqual({
        committed: numbers.filter((n) => !rollsBack(n)).length,
        rolledBack: numbers.filter(rollsBack).length,
        handlers: Object.fromEntries(
          SQL_CHAOS_HANDLERS.map((spec) => [
            spec.name,
            { missing: 0, notCommitted: 0, rolledBackHandled: 0, moreThanOnce: 0 },
          ]),
        ),
        left: { events: 0, jobs: 0, outbox: 0, deadLetters: 0 },
      });
      // The kills happened: the publisher died after commits, workers died mid-run.
      expect(processes.counts.workersKilled).toBeGreaterThan(0);
      expect(numbers.some((n) => killsAfterCommit(n, KILL_AFTER_COMMIT_EVERY))).toBe(true);
      const exits = await processes.stopWorkers();
      expect(exits.filter((e) => e.exit.code !== 0)).toEqual([]);
    },
    PUBLISH_TIMEOUT_MS + SETTLE_TIMEOUT_MS + 60_000,
  );
});
