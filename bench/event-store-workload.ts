/**
 * The event store benchmark's workload (issue 11), shared by every side so
 * each reduces the same events into the same two plain tables:
 *
 * - `EVENT_STORE_EVENTS` events of type `DEPOSIT`, event `i` carrying
 *   {@link depositData}`(i)` and appended to stream {@link depositStream}`(i)`;
 * - sent from `EVENT_STORE_LOOPS` concurrent loops, each sending its next
 *   event as soon as the previous one was accepted ({@link runLoops});
 * - reduced by two models: **accounts** (one row per account: balance +=
 *   amount, deposits += 1) and **totals** (one row per event type: count += 1,
 *   amount += amount);
 * - a run ends when every event is projected, then {@link checkProjections}
 *   compares both tables with {@link expectedProjections}.
 */

/** Events per measured run: env `BENCH_ES_EVENTS`. @defaultValue 20,000 */
export const EVENT_STORE_EVENTS = Number(process.env.BENCH_ES_EVENTS ?? 20_000);

/** Events sent before measuring (JIT, PostgreSQL caches, pool connections). @defaultValue a quarter of a run, at least 1,000 */
export const EVENT_STORE_WARMUP = Math.max(1_000, Math.round(EVENT_STORE_EVENTS / 4));

/** Measured runs per side: env `BENCH_ES_RUNS`. @defaultValue 3 */
export const EVENT_STORE_RUNS = Number(process.env.BENCH_ES_RUNS ?? 3);

/** Concurrent loops sending events, each with one send in flight. */
export const EVENT_STORE_LOOPS = 20;

/** PostgreSQL connections a side may open: one per loop, and a few for its own background work. */
export const EVENT_STORE_POOL_SIZE = EVENT_STORE_LOOPS + 4;

/** Distinct accounts (and streams) the events are spread over, round-robin. */
export const EVENT_STORE_ACCOUNTS = 1_000;

/** The one event type of the workload. */
export const DEPOSIT = 'DEPOSIT';

/** Data of a `DEPOSIT` event (a type, not an interface: event stores want an indexable record). */
export type DepositData = {
  /** `acct-0` to `acct-999`. */
  readonly account: string;
  /** 1 to 7. */
  readonly amount: number;
};

/** The data of the workload's `i`-th event. */
export function depositData(i: number): DepositData {
  return { account: `acct-${i % EVENT_STORE_ACCOUNTS}`, amount: (i % 7) + 1 };
}

/** The stream the `i`-th event is appended to, for sides that have streams: `account-<n>`. */
export function depositStream(i: number): string {
  return `account-${i % EVENT_STORE_ACCOUNTS}`;
}

/** Table of the accounts model: one row per account. */
export const ACCOUNTS_TABLE = 'accounts';

/** Table of the totals model: one row per event type. */
export const TOTALS_TABLE = 'totals';

/** The accounts table, for sides that create it with plain SQL (in the current search_path). */
export const CREATE_ACCOUNTS_TABLE = `CREATE TABLE IF NOT EXISTS ${ACCOUNTS_TABLE} (
  id text PRIMARY KEY, balance integer NOT NULL, deposits integer NOT NULL)`;

/** The totals table, for sides that create it with plain SQL (in the current search_path). */
export const CREATE_TOTALS_TABLE = `CREATE TABLE IF NOT EXISTS ${TOTALS_TABLE} (
  type text PRIMARY KEY, count integer NOT NULL, amount integer NOT NULL)`;

/**
 * Sends events `0` to `events - 1` from `loops` concurrent loops (each takes
 * the next index once its previous send resolved) and resolves with the
 * milliseconds until the last send resolved.
 */
export async function runLoops(
  events: number,
  loops: number,
  send: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const loop = async () => {
    while (next < events) await send(next++);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(loops, events) }, loop));
  return performance.now() - started;
}

/** What both tables hold after `events` events were reduced into empty ones. */
export interface ExpectedProjections {
  /** Rows in the accounts table. */
  readonly accounts: number;
  /** Sum of `balance` over the accounts. */
  readonly balance: number;
  /** Sum of `deposits` over the accounts. */
  readonly deposits: number;
  /** `count` of the `DEPOSIT` row in the totals table. */
  readonly count: number;
  /** `amount` of the `DEPOSIT` row in the totals table. */
  readonly amount: number;
}

/** The tables' content after events `0` to `events - 1`. */
export function expectedProjections(events: number): ExpectedProjections {
  let amount = 0;
  for (let i = 0; i < events; i++) amount += depositData(i).amount;
  return {
    accounts: Math.min(events, EVENT_STORE_ACCOUNTS),
    balance: amount,
    deposits: events,
    count: events,
    amount,
  };
}

/** Something that runs a query: a `pg` client or pool. */
export interface Queryable {
  query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * Reads both tables in `schema` and compares them with
 * {@link expectedProjections}`(events)`; resolves with what differs, or
 * `undefined` when they match. Figures are read as text, so this holds
 * whatever type parsers the process installed for `bigint`.
 */
export async function checkProjections(
  db: Queryable,
  schema: string,
  events: number,
): Promise<string | undefined> {
  const { rows } = await db.query(
    `SELECT
       (SELECT count(*) FROM ${schema}.${ACCOUNTS_TABLE})::text AS accounts,
       (SELECT coalesce(sum(balance), 0) FROM ${schema}.${ACCOUNTS_TABLE})::text AS balance,
       (SELECT coalesce(sum(deposits), 0) FROM ${schema}.${ACCOUNTS_TABLE})::text AS deposits,
       (SELECT coalesce(sum(count), 0) FROM ${schema}.${TOTALS_TABLE} WHERE type = $1)::text AS count,
       (SELECT coalesce(sum(amount), 0) FROM ${schema}.${TOTALS_TABLE} WHERE type = $1)::text AS amount,
       (SELECT count(*) FROM ${schema}.${TOTALS_TABLE} WHERE type <> $1)::text AS other_types`,
    [DEPOSIT],
  );
  const row = rows[0] ?? {};
  const expected = expectedProjections(events);
  const wrong = (Object.keys(expected) as (keyof ExpectedProjections)[])
    .filter((key) => Number(row[key]) !== expected[key])
    .map((key) => `${key} ${String(row[key])} (expected ${expected[key]})`);
  if (Number(row.other_types) !== 0) wrong.push(`${String(row.other_types)} totals rows of other types`);
  return wrong.length === 0 ? undefined : `after ${events} events: ${wrong.join(', ')}`;
}
