import { randomUUID } from 'node:crypto';
import { BullmqPgSide } from './bullmq-pg-side.js';
import { CommitbusSqlSide } from './commitbus-sql-side.js';
import { GraphileSide } from './graphile-side.js';
import { asUser, createRowSchema, dropSchema } from './pg-admin.js';
import { PgBossSide } from './pgboss-side.js';
import { type StatementCount, StatementCounter } from './statement-count.js';
import type { TxSide } from './tx-side.js';
import { TxTally } from './tx-tally.js';
import { runTxUnits, type TxRun } from './tx-workload.js';

/** How the transactional path is measured. */
export interface TransactionalOptions {
  /** PostgreSQL as a superuser: schemas and roles of the bench's own are created and dropped. */
  readonly databaseUrl: string;
  /** Units of work per measured run and side. */
  readonly units: number;
  /** Units of work run right after a side opens, not measured. */
  readonly warmup: number;
  /** Measured runs per side, the order rotating. */
  readonly runs: number;
  /** Concurrent producers. */
  readonly producers: number;
  /** Handler concurrency of the peers' workers. */
  readonly concurrency: number;
  /** Units of work of the statement-counted run per side (0: none). */
  readonly countedUnits: number;
  /** Only the sides whose label starts with one of these; all when empty. */
  readonly only: readonly string[];
  /** Called after each measured run. */
  readonly onRun: (run: number, side: TxSide, measured: TxRun) => void;
}

/** What one side gave over all its runs. */
export interface SideResult {
  readonly side: TxSide;
  readonly perS: number[];
  /** Commit-to-handler times of all measured runs, pooled. */
  readonly latenciesMs: number[];
  duplicates: number;
  /** The statement-counted run, when there was one. */
  counted?: { readonly units: number; readonly statements: StatementCount };
}

/** What {@link measureTransactional} found. */
export interface TransactionalResult {
  readonly sides: readonly SideResult[];
  /** How statements were counted; undefined when they could not be. */
  readonly countedBy: string | undefined;
}

const RUN_TIMEOUT_MS = 180_000;

/**
 * The transactional path on PostgreSQL: for each side, units of work that
 * each insert a business row and its event or job in one transaction, from
 * `producers` concurrent loops, a worker in this process running a no-op
 * handler. Sides run one at a time (each opened, warmed up, measured, closed,
 * so they never hold connections together), the order rotating per run.
 * Then one short run per side under a role that logs its statements, to count
 * them. Everything created is dropped at the end.
 */
export async function measureTransactional(options: TransactionalOptions): Promise<TransactionalResult> {
  const base = `bench_sql_${randomUUID().slice(0, 8)}`;
  const url = options.databaseUrl;
  const sides = makeSides(base, options);
  const results = sides.map((side): SideResult => ({ side, perS: [], latenciesMs: [], duplicates: 0 }));
  const prepared: TxSide[] = [];
  let counter: StatementCounter | undefined;
  try {
    await createRowSchema(url, base);
    for (const side of sides) {
      prepared.push(side);
      await side.prepare(url);
    }
    for (let run = 1; run <= options.runs; run++) {
      const shift = (run - 1) % results.length;
      for (const result of [...results.slice(shift), ...results.slice(0, shift)]) {
        await measuredRun(result, run, url, options);
      }
    }
    counter = options.countedUnits > 0 ? await StatementCounter.open(url) : undefined;
    if (counter !== undefined) {
      for (const result of results) await countedRun(result, counter, url, options);
    }
    return { sides: results, countedBy: counter?.describe() };
  } finally {
    await counter?.cleanup();
    for (const side of prepared) await side.teardown(url).catch(() => {});
    await dropSchema(url, base);
  }
}

function makeSides(base: string, options: TransactionalOptions): TxSide[] {
  const { producers, concurrency } = options;
  // Producers hold a connection each for their transaction; the worker needs a few more.
  const pool = producers + concurrency + 2;
  const sides = [
    new CommitbusSqlSide(new TxTally(), `${base}_cb`, producers + 6),
    new GraphileSide(new TxTally(), `${base}_gw`, base, pool, concurrency),
    new PgBossSide(new TxTally(), `${base}_boss`, base, producers, 4, 200),
    new BullmqPgSide(new TxTally(), `${base}_bullmq`, base, producers, concurrency),
  ];
  const { only } = options;
  return only.length === 0 ? sides : sides.filter((s) => only.some((o) => s.label.startsWith(o)));
}

async function measuredRun(
  result: SideResult,
  run: number,
  url: string,
  options: TransactionalOptions,
): Promise<void> {
  const { side } = result;
  await side.open(url);
  try {
    await runTxUnits(side, options.warmup, options.producers, RUN_TIMEOUT_MS);
    const measured = await runTxUnits(side, options.units, options.producers, RUN_TIMEOUT_MS);
    result.perS.push(measured.perS);
    result.latenciesMs.push(...measured.latenciesMs);
    result.duplicates += measured.duplicates;
    options.onRun(run, side, measured);
  } finally {
    await side.close();
  }
}

async function countedRun(
  result: SideResult,
  counter: StatementCounter,
  url: string,
  options: TransactionalOptions,
): Promise<void> {
  const { side } = result;
  const role = await counter.role(side.label.replace(/\W+/g, '_'));
  await side.open(asUser(url, role));
  try {
    const statements = await counter.count(role, async () => {
      await runTxUnits(side, options.countedUnits, options.producers, RUN_TIMEOUT_MS);
    });
    result.counted = { units: options.countedUnits, statements };
  } finally {
    await side.close();
  }
}
