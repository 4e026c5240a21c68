/**
 * The commitbus side of the SQLite lone-dispatch benchmark (issue 17): one
 * loop dispatching `DEPOSIT` events one at a time into a store on a SQLite
 * file, each `await store.dispatch(...)` resolving once the event is
 * reduced (the writer in the same process), as a service that dispatches a
 * request and answers with its result would. Reports events/s and the
 * latency of each dispatch. Runnable alone: `npx tsx bench/event-store-sqlite-side.ts`.
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMITBUS_ENTITIES, createEventStore } from '../src/index.js';
import { Account, accounts, Total, totals } from './event-store-side.js';
import { DEPOSIT, depositData, expectedProjections } from './event-store-workload.js';
import { median, percentile, round } from './stats.js';

/** Dispatches per measured run: env `BENCH_ES_LONE_EVENTS`. @defaultValue 2,000 */
export const LONE_EVENTS = Number(process.env.BENCH_ES_LONE_EVENTS ?? 2_000);

/** Measured runs per side: env `BENCH_ES_LONE_RUNS`. @defaultValue 3 */
export const LONE_RUNS = Number(process.env.BENCH_ES_LONE_RUNS ?? 3);

/** Dispatches before measuring. */
export const LONE_WARMUP = 300;

/** What one side of the lone-dispatch benchmark measured. */
export interface LoneFigures {
  /** Events per second, median over the runs. */
  readonly perS: number;
  /** Each run's events per second. */
  readonly runsPerS: readonly number[];
  /** Dispatch-to-handled latency over every measured dispatch, ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** What the check after each run found wrong. */
  readonly failures: readonly string[];
}

/** Times `events` sequential calls of `send`, each awaited; returns events/s and each call's ms. */
export async function timeLone(
  events: number,
  send: (i: number) => Promise<unknown>,
): Promise<{ perS: number; latencies: number[] }> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < events; i++) {
    const t = performance.now();
    await send(i);
    latencies.push(performance.now() - t);
  }
  return { perS: events / ((performance.now() - started) / 1000), latencies };
}

/** Turns runs of {@link timeLone} into {@link LoneFigures}. */
export function loneFigures(
  runs: readonly { perS: number; latencies: number[] }[],
  failures: readonly string[],
): LoneFigures {
  const all = runs.flatMap((r) => r.latencies);
  return {
    perS: median(runs.map((r) => r.perS)),
    runsPerS: runs.map((r) => r.perS),
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    failures,
  };
}

/** What a lone-dispatch measurement takes: events per run, measured runs, a callback per run. */
export interface LoneOptions {
  readonly events?: number;
  readonly runs?: number;
  readonly onRun?: (run: number, perS: number) => void;
}

/**
 * A warm-up and `options.runs` measured runs of `once`, each on a fresh SQLite
 * file in a temporary directory named from `dirPrefix` (removed afterwards).
 * `once(path, count)` dispatches `count` events one at a time and returns its
 * timing and what its check found wrong.
 */
export async function measureLone(
  dirPrefix: string,
  options: LoneOptions,
  once: (
    path: string,
    count: number,
  ) => Promise<{ run: { perS: number; latencies: number[] }; wrong?: string }>,
): Promise<LoneFigures> {
  const dir = await mkdtemp(join(tmpdir(), dirPrefix));
  const runs: { perS: number; latencies: number[] }[] = [];
  const failures: string[] = [];
  const check = (wrong: string | undefined) => wrong !== undefined && failures.push(wrong);
  try {
    check((await once(join(dir, 'warmup.sqlite'), LONE_WARMUP)).wrong);
    for (let run = 1; run <= (options.runs ?? LONE_RUNS); run++) {
      const measured = await once(join(dir, `run-${run}.sqlite`), options.events ?? LONE_EVENTS);
      check(measured.wrong);
      runs.push(measured.run);
      options.onRun?.(run, measured.run.perS);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return loneFigures(runs, failures);
}

/** Compares the two tables with what `events` deposits make; `undefined` when right. */
export function checkLone(
  rows: { accounts: number; balance: number; deposits: number; count: number; amount: number },
  events: number,
): string | undefined {
  const expected = expectedProjections(events);
  const wrong = (Object.keys(expected) as (keyof typeof expected)[])
    .filter((key) => Number(rows[key]) !== expected[key])
    .map((key) => `${key} ${rows[key]} (expected ${expected[key]})`);
  return wrong.length === 0 ? undefined : `after ${events} events: ${wrong.join(', ')}`;
}

/** The SQL that reads what {@link checkLone} compares, on SQLite. */
export const LONE_CHECK_SQL = `SELECT
  (SELECT count(*) FROM accounts) AS accounts,
  (SELECT coalesce(sum(balance), 0) FROM accounts) AS balance,
  (SELECT coalesce(sum(deposits), 0) FROM accounts) AS deposits,
  (SELECT coalesce(sum(count), 0) FROM totals) AS count,
  (SELECT coalesce(sum(amount), 0) FROM totals) AS amount`;

/** Measures commitbus's lone dispatch on a fresh SQLite file per run, with the store's defaults. */
export function measureSqliteLone(options: LoneOptions = {}): Promise<LoneFigures> {
  return measureLone('bench-es-sqlite-', options, async (path, count) => {
    const dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: path,
      entities: [Account, Total, ...COMMITBUS_ENTITIES],
      synchronize: true,
    }).initialize();
    const store = createEventStore({ dataSource, models: [accounts, totals] });
    await store.start();
    try {
      const run = await timeLone(count, (i) => store.dispatch(DEPOSIT, depositData(i)));
      const [rows] = (await dataSource.query(LONE_CHECK_SQL)) as Parameters<typeof checkLone>[0][];
      return { run, wrong: rows === undefined ? 'no rows' : checkLone(rows, count) };
    } finally {
      await store.close();
      await dataSource.destroy();
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureSqliteLone({
    onRun: (run, perS) =>
      console.log(`run ${run}: ${Math.round(perS)} events/s, load average ${loadavg()[0]?.toFixed(2)}`),
  });
  for (const failure of figures.failures) console.log(`FAILED ${failure}`);
  console.log(
    JSON.stringify({
      sqlite_lone_per_s: round(figures.perS),
      sqlite_lone_p50_ms: round(figures.p50Ms, 2),
      sqlite_lone_p99_ms: round(figures.p99Ms, 2),
    }),
  );
  if (figures.failures.length > 0) process.exitCode = 1;
}
