/**
 * The commitbus side of the event store benchmark: the shared workload
 * (bench/event-store-workload.ts) dispatched with `{ wait: false }` from 20
 * loops into a commitbus event store on PostgreSQL, then `waitForQueue`.
 * Runnable alone: `npx tsx bench/event-store-side.ts`.
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import pg from 'pg';
import { DataSource, EntitySchema } from 'typeorm';
import { COMMITBUS_ENTITIES, createEventStore, defineModel, type StoreEvent } from '../src/index.js';
import {
  ACCOUNTS_TABLE,
  checkProjections,
  DEPOSIT,
  type DepositData,
  depositData,
  EVENT_STORE_EVENTS,
  EVENT_STORE_LOOPS,
  EVENT_STORE_POOL_SIZE,
  EVENT_STORE_RUNS,
  EVENT_STORE_WARMUP,
  runLoops,
  TOTALS_TABLE,
} from './event-store-workload.js';

interface AccountRow {
  id: string;
  balance: number;
  deposits: number;
}
interface TotalRow {
  type: string;
  count: number;
  amount: number;
}

/** The accounts table's entity (shared with the SQLite side). */
export const Account = new EntitySchema<AccountRow>({
  name: 'BenchAccount',
  tableName: ACCOUNTS_TABLE,
  columns: {
    id: { type: 'text', primary: true },
    balance: { type: 'integer' },
    deposits: { type: 'integer' },
  },
});
/** The totals table's entity (shared with the SQLite side). */
export const Total = new EntitySchema<TotalRow>({
  name: 'BenchTotal',
  tableName: TOTALS_TABLE,
  columns: { type: { type: 'text', primary: true }, count: { type: 'integer' }, amount: { type: 'integer' } },
});

type Deposit = StoreEvent<DepositData>;

/** The accounts model: balance and deposits per account. */
export const accounts = defineModel<AccountRow>({
  name: 'accounts',
  entity: Account,
  prefetch: (event) => (event.data as DepositData).account,
  reducers: {
    [DEPOSIT]: async (event: Deposit, { get }) => {
      const row = await get(event.data.account);
      return {
        sav: [
          {
            id: event.data.account,
            balance: (row?.balance ?? 0) + event.data.amount,
            deposits: (row?.deposits ?? 0) + 1,
          },
        ],
      };
    },
  },
});
/** The totals model: count and amount per event type. */
export const totals = defineModel<TotalRow>({
  name: 'totals',
  entity: Total,
  prefetch: (event) => event.type,
  reducers: {
    [DEPOSIT]: async (event: Deposit, { get }) => {
      const row = await get(event.type);
      return {
        sav: [
          { type: event.type, count: (row?.count ?? 0) + 1, amount: (row?.amount ?? 0) + event.data.amount },
        ],
      };
    },
  },
});

/** Figures of the commitbus side. */
export interface EventStoreSideFigures {
  /** Median events reduced per second. */
  readonly perS: number;
  /** Each run's figure. */
  readonly runsPerS: readonly number[];
  /** Runs whose tables did not match the workload. */
  readonly failures: readonly string[];
}

/** Measures the commitbus event store on `databaseUrl` in schema `schema`. */
export async function measureEventStoreSide(options: {
  databaseUrl: string;
  events?: number;
  warmup?: number;
  runs?: number;
  schema?: string;
  onRun?: (run: number, perS: number) => void;
}): Promise<EventStoreSideFigures> {
  const schema = options.schema ?? 'bench_es_commitbus';
  const admin = new pg.Client({ connectionString: options.databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.databaseUrl,
    schema,
    entities: [Account, Total, ...COMMITBUS_ENTITIES],
    synchronize: true,
    extra: { max: EVENT_STORE_POOL_SIZE },
  });
  await dataSource.initialize();
  const runs: number[] = [];
  const failures: string[] = [];
  try {
    const once = async (events: number): Promise<number> => {
      await admin.query(
        `TRUNCATE ${schema}.${ACCOUNTS_TABLE}, ${schema}.${TOTALS_TABLE}, ${schema}.commitbus_es_events, ${schema}.commitbus_es_state`,
      );
      const store = createEventStore({ dataSource, models: [accounts, totals] });
      await store.start();
      const started = performance.now();
      await runLoops(events, EVENT_STORE_LOOPS, (i) =>
        store.dispatch(DEPOSIT, depositData(i), { wait: false }),
      );
      const dispatched = performance.now() - started;
      await store.waitForQueue();
      if (process.env.BENCH_ES_DEBUG)
        console.log(
          `dispatched in ${Math.round(dispatched)} ms, all handled in ${Math.round(performance.now() - started)} ms`,
        );
      const perS = events / ((performance.now() - started) / 1000);
      await store.close();
      const wrong = await checkProjections(admin, schema, events);
      if (wrong !== undefined) failures.push(wrong);
      return perS;
    };
    await once(options.warmup ?? EVENT_STORE_WARMUP);
    for (let run = 1; run <= (options.runs ?? EVENT_STORE_RUNS); run++) {
      const perS = await once(options.events ?? EVENT_STORE_EVENTS);
      runs.push(perS);
      options.onRun?.(run, perS);
    }
  } finally {
    await dataSource.destroy();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
  const sorted = [...runs].sort((a, b) => a - b);
  return { perS: sorted[Math.floor(sorted.length / 2)] ?? 0, runsPerS: runs, failures };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureEventStoreSide({
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    onRun: (run, perS) =>
      console.log(`run ${run}: ${Math.round(perS)} events/s, load average ${loadavg()[0]?.toFixed(2)}`),
  });
  for (const failure of figures.failures) console.log(`FAILED ${failure}`);
  console.log(JSON.stringify({ event_store_per_s: Math.round(figures.perS) }));
  if (figures.failures.length > 0) process.exitCode = 1;
}
