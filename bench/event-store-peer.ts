import { realpathSync } from 'node:fs';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { type SQL, sql } from '@event-driven-io/dumbo';
import type { Event } from '@event-driven-io/emmett';
import {
  getPostgreSQLEventStore,
  type PostgresEventStore,
  postgreSQLRawSQLProjection,
} from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import {
  ACCOUNTS_TABLE,
  CREATE_ACCOUNTS_TABLE,
  CREATE_TOTALS_TABLE,
  checkProjections,
  DEPOSIT,
  type DepositData,
  depositData,
  depositStream,
  EVENT_STORE_ACCOUNTS,
  EVENT_STORE_EVENTS,
  EVENT_STORE_LOOPS,
  EVENT_STORE_POOL_SIZE,
  EVENT_STORE_RUNS,
  EVENT_STORE_WARMUP,
  runLoops,
  TOTALS_TABLE,
} from './event-store-workload.js';
import { median, round } from './stats.js';

/** How {@link measureEmmettPeer} runs. */
export interface EmmettPeerOptions {
  /** PostgreSQL; a schema of its own is created, emptied between runs, and dropped at the end. */
  databaseUrl: string;
  /** Events per measured run. */
  events: number;
  /** Concurrent append loops. */
  loops: number;
  /** Events appended before the first measured run (then emptied away). */
  warmup: number;
  /** Measured runs. @defaultValue 1 */
  runs?: number;
  /** Connections in the store's pool. @defaultValue {@link EVENT_STORE_POOL_SIZE} */
  poolSize?: number;
  /** The schema it owns; dropped first if it exists. @defaultValue `bench_es_peer` */
  schema?: string;
  /** Called after each measured run, with what its check found wrong (`undefined` when right). */
  onRun?: (run: number, perS: number, failure: string | undefined) => void;
}

/** What {@link measureEmmettPeer} found. */
export interface EmmettPeerFigures {
  /** Events appended and projected per second, median over the runs. */
  readonly perS: number;
  /** Each run's events per second, in order. */
  readonly runsPerS: readonly number[];
  /** What the check after each run found wrong; empty when every run was right. */
  readonly failures: readonly string[];
}

type DepositEvent = Event<typeof DEPOSIT, DepositData>;

// Raw SQL projections, so Emmett writes the same plain tables as commitbus; both
// upserts run in the append's transaction (inline). Accounts first: the totals
// row, which every append updates, stays locked for the shortest time.
const accountsProjection = postgreSQLRawSQLProjection<DepositEvent>({
  name: ACCOUNTS_TABLE,
  canHandle: [DEPOSIT],
  init: () => sql(CREATE_ACCOUNTS_TABLE),
  evolve: ({ data }) =>
    sql(
      `INSERT INTO ${ACCOUNTS_TABLE} (id, balance, deposits) VALUES (%L, %s, 1)
       ON CONFLICT (id) DO UPDATE SET balance = ${ACCOUNTS_TABLE}.balance + EXCLUDED.balance,
         deposits = ${ACCOUNTS_TABLE}.deposits + 1`,
      data.account,
      data.amount,
    ),
});

const totalsProjection = postgreSQLRawSQLProjection<DepositEvent>({
  name: TOTALS_TABLE,
  canHandle: [DEPOSIT],
  init: () => sql(CREATE_TOTALS_TABLE),
  evolve: ({ type, data }): SQL =>
    sql(
      `INSERT INTO ${TOTALS_TABLE} (type, count, amount) VALUES (%L, 1, %s)
       ON CONFLICT (type) DO UPDATE SET count = ${TOTALS_TABLE}.count + 1,
         amount = ${TOTALS_TABLE}.amount + EXCLUDED.amount`,
      type,
      data.amount,
    ),
});

/** `databaseUrl` with every connection's search_path set to `schema`: Emmett names its tables unqualified. */
function urlInSchema(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

function append(store: PostgresEventStore, i: number): Promise<unknown> {
  const event: DepositEvent = { type: DEPOSIT, data: depositData(i) };
  return store.appendToStream(depositStream(i), [event]);
}

/** Empties the event store and both tables; keeps the schema, its functions and the projections' registrations. */
async function empty(admin: pg.Client, schema: string): Promise<void> {
  await admin.query(
    `TRUNCATE ${['emt_messages', 'emt_streams', 'emt_processors', ACCOUNTS_TABLE, TOTALS_TABLE]
      .map((table) => `${schema}.${table}`)
      .join(', ')} RESTART IDENTITY`,
  );
}

/** Events and streams in the store: each event appended once, to its own account's stream. */
async function checkStore(admin: pg.Client, schema: string, events: number): Promise<string | undefined> {
  const { rows } = await admin.query<{ messages: string; streams: string }>(
    `SELECT (SELECT count(*) FROM ${schema}.emt_messages)::text AS messages,
            (SELECT count(*) FROM ${schema}.emt_streams)::text AS streams`,
  );
  const { messages, streams } = rows[0] ?? { messages: '?', streams: '?' };
  const expectedStreams = Math.min(events, EVENT_STORE_ACCOUNTS);
  return Number(messages) === events && Number(streams) === expectedStreams
    ? undefined
    : `store holds ${messages} events in ${streams} streams (expected ${events} in ${expectedStreams})`;
}

/**
 * The peer of commitbus's event store (issue 11): Emmett's PostgreSQL event
 * store (`@event-driven-io/emmett-postgresql`) with the workload's two models
 * as inline raw-SQL projections. `loops` loops append one `DEPOSIT` each to
 * its `account-<n>` stream and await it; inline projections run in the
 * append's transaction, so when the last append resolves every event is
 * projected. Each run starts from an empty store and empty tables and is
 * checked after (events and streams in the store, both tables).
 *
 * Emmett's pool library (dumbo) installs process-wide `pg` type parsers
 * (`bigint` to `BigInt`, `json`/`jsonb` through its own serializer) when the
 * store is created: run this in a process of its own (`npx tsx
 * bench/event-store-peer.ts` prints a JSON line) when other `pg` or TypeORM
 * code shares the process.
 */
export async function measureEmmettPeer(options: EmmettPeerOptions): Promise<EmmettPeerFigures> {
  const schema = options.schema ?? 'bench_es_peer';
  const runs = options.runs ?? 1;
  const admin = new pg.Client({ connectionString: options.databaseUrl });
  await admin.connect();
  const url = urlInSchema(options.databaseUrl, schema);
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? EVENT_STORE_POOL_SIZE });
  let store: PostgresEventStore | undefined;
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.query(`CREATE SCHEMA ${schema}`);
    store = getPostgreSQLEventStore(url, {
      connectionOptions: { pool },
      projections: [
        { type: 'inline', projection: accountsProjection },
        { type: 'inline', projection: totalsProjection },
      ],
    });
    await store.schema.migrate();
    const active = store;

    await runLoops(options.warmup, options.loops, (i) => append(active, i));
    await empty(admin, schema);
    const runsPerS: number[] = [];
    const failures: string[] = [];
    for (let run = 1; run <= runs; run++) {
      const ms = await runLoops(options.events, options.loops, (i) => append(active, i));
      const perS = options.events / (ms / 1000);
      const wrong = [
        await checkStore(admin, schema, options.events),
        await checkProjections(admin, schema, options.events),
      ].filter((text) => text !== undefined);
      const failure = wrong.length === 0 ? undefined : `run ${run}: ${wrong.join('; ')}`;
      runsPerS.push(perS);
      if (failure !== undefined) failures.push(failure);
      options.onRun?.(run, perS, failure);
      await empty(admin, schema);
    }
    return { perS: median(runsPerS), runsPerS, failures };
  } finally {
    await store?.close();
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const load = () => round(loadavg()[0] ?? 0, 2);
  console.log(
    `Emmett 0.42.0 PostgreSQL event store, inline raw-SQL projections (accounts, totals), ` +
      `load average ${load()}\n` +
      `${EVENT_STORE_EVENTS} DEPOSIT events per run over ${EVENT_STORE_ACCOUNTS} streams, ${EVENT_STORE_LOOPS} append loops, ` +
      `pool of ${EVENT_STORE_POOL_SIZE}, warm-up of ${EVENT_STORE_WARMUP}, ${EVENT_STORE_RUNS} runs`,
  );
  const figures = await measureEmmettPeer({
    databaseUrl,
    events: EVENT_STORE_EVENTS,
    loops: EVENT_STORE_LOOPS,
    warmup: EVENT_STORE_WARMUP,
    runs: EVENT_STORE_RUNS,
    onRun: (run, perS, failure) =>
      console.log(
        `  run ${run} emmett: ${round(perS)} events/s (load average ${load()})` +
          (failure === undefined ? ', check passed' : `\n  FAILED ${failure}`),
      ),
  });
  console.log(`emmett median: ${round(figures.perS)} events/s; load average ${load()} at the end`);
  console.log(
    JSON.stringify({
      emmett_per_s: round(figures.perS),
      emmett_min_per_s: round(Math.min(...figures.runsPerS)),
      emmett_max_per_s: round(Math.max(...figures.runsPerS)),
      emmett_failures: figures.failures.length,
    }),
  );
  if (figures.failures.length > 0) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  await main();
}
