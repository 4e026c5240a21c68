import { loadavg } from 'node:os';
import { percentile, round, table } from '../stats.js';
import { assertReachable, redact } from './pg-admin.js';
import { measureEmbedded } from './sqlite-embedded.js';
import { measureTransactional, type SideResult } from './transactional.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
// Transactional path: units of work per measured run and side, warm-up after each open, runs, producers.
const TX_UNITS = env('BENCH_SQL_UNITS', 2_000);
const TX_WARMUP = env('BENCH_SQL_WARMUP', 300);
const TX_RUNS = env('BENCH_SQL_RUNS', 3);
const TX_PRODUCERS = 20;
const TX_CONCURRENCY = 10;
// BENCH_SQL_SIDES=commitbus,graphile: only those sides (labels starting so), for a quick look at one.
const TX_SIDES = (process.env.BENCH_SQL_SIDES ?? '').split(',').filter((s) => s !== '');
// The statement-counted run per side, after the timed ones.
const COUNTED_UNITS = env('BENCH_SQL_COUNTED', 200);
// Embedded default: events per run and side, per bus.publish, publishes in flight, runs.
const SQLITE_EVENTS = env('BENCH_SQLITE_EVENTS', 20_000);
const SQLITE_BATCH = 10;
const SQLITE_IN_FLIGHT = 50;
const SQLITE_RUNS = 3;

const ms = (value: number) => round(value, 2);
const load = () => round(loadavg()[0] ?? 0, 2);
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** The SQL transport against its peers on PostgreSQL, and on a SQLite file against SQLite in memory (the embedded default); prints its tables and returns the figures. */
export async function compareSql(databaseUrl: string): Promise<Record<string, number>> {
  await assertReachable(databaseUrl);
  const started = performance.now();
  const tx = await compareTransactional(databaseUrl);
  const embedded = await compareEmbedded();
  console.log(
    `\nSQL bench took ${round((performance.now() - started) / 1000)} s; load average ${load()} at the end`,
  );
  return { ...tx, ...embedded };
}

async function compareTransactional(databaseUrl: string): Promise<Record<string, number>> {
  console.log(
    `\nSQL transport, transactional path on ${redact(databaseUrl)}, load average ${load()} at the start (2 cores, shared)\n` +
      `each unit of work: one transaction inserting a row and its event/job; ${TX_PRODUCERS} producers; ` +
      `${TX_UNITS} units per run after a warm-up of ${TX_WARMUP}; ${TX_RUNS} runs per side, one side at a time, rotating order; ` +
      'worker in this process, no-op handler; units/s = all handled / elapsed; ' +
      "latency = producer's COMMIT resolved -> handler ran (0 when the handler ran first)",
  );
  const result = await measureTransactional({
    databaseUrl,
    units: TX_UNITS,
    warmup: TX_WARMUP,
    runs: TX_RUNS,
    producers: TX_PRODUCERS,
    concurrency: TX_CONCURRENCY,
    countedUnits: COUNTED_UNITS,
    only: TX_SIDES,
    onRun: (run, side, { perS, committedPerS, latenciesMs: lat }) =>
      console.log(
        `  run ${run} ${side.label}: ${round(perS)} units/s (committed at ${round(committedPerS)}/s), ` +
          `p50 ${ms(percentile(lat, 50))} ms, p99 ${ms(percentile(lat, 99))} ms (load average ${load()})`,
      ),
  });
  for (const { side } of result.sides) console.log(`  ${side.label}: ${side.description}`);
  const summaries = result.sides.map(summarize);
  const [cb, gw, boss, bull] = SIDE_LABELS.map((label) => summaries.find((s) => s.label === label));
  printSideTable(summaries, gw?.perS ?? Number.NaN);
  if (cb !== undefined && gw !== undefined && bull !== undefined) printTargets(cb, gw, bull);
  printStatements(result.sides, result.countedBy);
  const ratio: Record<string, number> = {};
  if (cb !== undefined && gw !== undefined) ratio.sql_tx_ratio_graphile = round(cb.perS / gw.perS, 2);
  return {
    ...(cb === undefined ? {} : sideFigures('sql_tx', 'sql', cb, true)),
    ...(gw === undefined ? {} : sideFigures('graphile_tx', 'graphile', gw)),
    ...(boss === undefined ? {} : sideFigures('pgboss_tx', 'pgboss', boss)),
    ...ratio,
    ...(bull === undefined ? {} : sideFigures('bullmq_pg_tx', 'bullmq_pg', bull)),
  };
}

const SIDE_LABELS = ['commitbus sql', 'graphile-worker', 'pg-boss', 'bullmq-pg'];

/** One side's fields of the closing JSON line: `<rate>_per_s`, `<name>_p50_ms` (`sql_tx_p50_ms` for commitbus), ... */
function sideFigures(rate: string, name: string, s: Summary, txLatency = false): Record<string, number> {
  const lat = txLatency ? rate : name;
  const figures: Record<string, number> = {
    [`${rate}_per_s`]: round(s.perS),
    [`${lat}_p50_ms`]: ms(s.p50),
    [`${lat}_p99_ms`]: ms(s.p99),
  };
  if (!Number.isNaN(s.statementsPerUnit))
    figures[`${name}_statements_per_unit`] = round(s.statementsPerUnit, 2);
  return figures;
}

interface Summary {
  readonly label: string;
  readonly perS: number;
  readonly p50: number;
  readonly p99: number;
  readonly statementsPerUnit: number;
  readonly duplicates: number;
}

function summarize(result: SideResult): Summary {
  const sorted = [...result.perS].sort((a, b) => a - b);
  return {
    label: result.side.label,
    perS: sorted[sorted.length >> 1] ?? Number.NaN,
    p50: percentile(result.latenciesMs, 50),
    p99: percentile(result.latenciesMs, 99),
    statementsPerUnit:
      result.counted === undefined ? Number.NaN : result.counted.statements.total / result.counted.units,
    duplicates: result.duplicates,
  };
}

function printSideTable(summaries: readonly Summary[], graphilePerS: number): void {
  console.log();
  console.log(
    table([
      [
        'transactional path',
        'units/s (median)',
        'vs graphile',
        'p50, ms',
        'p99, ms',
        'statements/unit',
        'duplicates',
      ],
      ...summaries.map((s) => [
        s.label,
        String(round(s.perS)),
        `${(s.perS / graphilePerS).toFixed(2)}x`,
        String(ms(s.p50)),
        String(ms(s.p99)),
        Number.isNaN(s.statementsPerUnit) ? 'n/a' : s.statementsPerUnit.toFixed(2),
        String(s.duplicates),
      ]),
    ]),
  );
}

function printTargets(cb: Summary, gw: Summary, bull: Summary): void {
  console.log();
  console.log(
    table([
      ['commitbus sql against its targets', 'value', 'target', ''],
      [
        'units/s vs graphile-worker',
        `${(cb.perS / gw.perS).toFixed(2)}x`,
        '>= 2.5x',
        verdict(cb.perS >= 2.5 * gw.perS),
      ],
      ['p50 vs graphile-worker p50', `${ms(cb.p50)} vs ${ms(gw.p50)} ms`, '<=', verdict(cb.p50 <= gw.p50)],
      [
        'units/s vs bullmq-pg',
        `${(cb.perS / bull.perS).toFixed(2)}x`,
        '> 1.0x',
        verdict(cb.perS > bull.perS),
      ],
    ]),
  );
}

function printStatements(sides: readonly SideResult[], countedBy: string | undefined): void {
  console.log();
  if (COUNTED_UNITS <= 0) return;
  if (countedBy === undefined) {
    console.log(
      'statements per unit of work: not counted (neither the server log nor pg_stat_statements readable)',
    );
    return;
  }
  console.log(`statements per unit of work (producer and worker), counted by PostgreSQL: ${countedBy}`);
  for (const { side, counted } of sides) {
    if (counted === undefined) continue;
    const { units, statements } = counted;
    console.log(`  ${side.label}: ${statements.total} statements for ${units} units of work; the most run:`);
    for (const [sql, n] of statements.byText.slice(0, side.label.startsWith('commitbus') ? 25 : 8)) {
      // The bench's random schema names say nothing.
      const text = sql.replace(/bench_sql_[0-9a-f]{8}/g, 'bench');
      console.log(
        `    ${(n / units).toFixed(2).padStart(6)}/unit  ${text.length > 150 ? `${text.slice(0, 147)}...` : text}`,
      );
    }
  }
}

async function compareEmbedded(): Promise<Record<string, number>> {
  console.log(
    `\nembedded default: commitbus on the SQL transport over a SQLite file (WAL) vs the same on SQLite in memory (what durability costs; the in-process transport it replaced is gone), ` +
      `end to end (bus.publish of ${SQLITE_BATCH} events, ${SQLITE_IN_FLIGHT} in flight, sync no-op handler, worker in this process); ` +
      `${SQLITE_EVENTS} events per run, ${SQLITE_RUNS} runs per side, alternating; load average ${load()}`,
  );
  const figures = await measureEmbedded({
    events: SQLITE_EVENTS,
    batch: SQLITE_BATCH,
    inFlight: SQLITE_IN_FLIGHT,
    runs: SQLITE_RUNS,
    warmup: Math.max(1_000, Math.round(SQLITE_EVENTS / 4)),
    onRun: (run, label, perS) =>
      console.log(`  run ${run} ${label}: ${round(perS)} events/s (load average ${load()})`),
  });
  console.log();
  console.log(
    table([
      ['embedded, events/s (median)', 'sqlite file', 'sqlite memory', 'file/memory', 'target', ''],
      [
        'end to end',
        String(round(figures.sqlitePerS)),
        String(round(figures.memoryPerS)),
        `${(figures.sqlitePerS / figures.memoryPerS).toFixed(2)}x`,
        '>= 10,000/s',
        verdict(figures.sqlitePerS >= 10_000),
      ],
    ]),
  );
  return { sqlite_e2e_per_s: round(figures.sqlitePerS), sqlite_memory_e2e_per_s: round(figures.memoryPerS) };
}
