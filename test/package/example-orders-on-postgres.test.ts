/**
 * examples/orders-on-postgres as its README runs it, on a fresh PostgreSQL
 * schema and nothing else (the Redis variables point nowhere): the
 * migrations, then `commitbus worker` on the example's bus module and the
 * publisher script as two real processes started together. Every order the
 * publisher committed is handled (confirmed, and notified exactly once), the
 * one it rolled back never is, the worker stops gracefully on SIGTERM, and
 * the bus's tables are left empty.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliProcess, startCli } from '../helpers/cli-runner.js';
import { PG, resetSchema } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

const DIR = 'examples/orders-on-postgres';
const SCHEMA = `orders_example_${process.pid}`;
const ORDERS = 30;
const ENV = {
  DATABASE_URL: `postgres://${PG.user}@${PG.host}:${PG.port}/${PG.database}`,
  ORDERS_PG_SCHEMA: SCHEMA,
  // Nothing of the example may reach for Redis: these point at a port nothing listens on.
  REDIS_URL: 'redis://127.0.0.1:1',
  COMMITBUS_REDIS_URL: '',
  REDIS_CLUSTER_NODES: '',
  COMMITBUS_REDIS_CLUSTER: '',
  COMMITBUS_TRANSPORT: '',
};

const db = new pg.Client(PG);
const children: CliProcess[] = [];

beforeAll(async () => {
  await resetSchema(SCHEMA);
  await db.connect();
});
afterAll(async () => {
  for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
  await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await db.end();
});

/** A script of the example, run to its end with `node --import tsx`: its stdout, or an error with its output. */
function runScript(script: string, args: string[] = []): Promise<string> {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', `${DIR}/${script}`, ...args], {
    env: { ...process.env, ...ENV },
    timeout: 120_000,
  }).then(
    ({ stdout }) => stdout,
    (error: { code?: number; stdout?: string; stderr?: string }) => {
      throw new Error(`${script} failed (${String(error.code)}): ${error.stderr ?? ''}${error.stdout ?? ''}`);
    },
  );
}

const count = async (sql: string, params: unknown[] = []): Promise<number> =>
  Number((await db.query<{ n: string }>(sql, params)).rows[0]?.n);

it('runs publisher and worker as two processes on PostgreSQL alone: every committed order handled once', {
  timeout: 240_000,
}, async () => {
  expect(await runScript('migrate.ts')).toMatch(/^migrate: \d+ migration\(s\) run in schema orders_example_/);

  const worker = startCli(['worker', `${DIR}/bus.ts`], ENV);
  children.push(worker);
  // Started together: what the publisher commits before the worker is up waits in the database.
  const published = await runScript('publisher.ts', [String(ORDERS)]);
  const run = /committed (\d+) orders \(run ([0-9a-f]+)\)/.exec(published);
  expect(run?.[1]).toBe(String(ORDERS));
  const ids = [...published.matchAll(/^publisher: placed (\S+)$/gm)].map((m) => m[1]);
  expect(ids).toHaveLength(ORDERS);
  expect(published).toContain(`publisher: refused ${run?.[2]}-refused (rolled back)`);

  await waitFor(
    'every committed order confirmed and notified',
    async () =>
      (await count(`SELECT count(*) AS n FROM ${SCHEMA}.orders WHERE status = 'confirmed'`)) === ORDERS &&
      (await count(`SELECT count(*) AS n FROM ${SCHEMA}.order_notifications`)) === ORDERS,
    { timeoutMs: 120_000, describe: () => worker.stdout() + worker.stderr() },
  );
  expect(worker.stdout()).toMatch(
    /^commitbus worker: bus orders \(transport sql-postgres on PostgreSQL 127\.0\.0\.1:5432\/test\)/,
  );

  worker.child.kill('SIGTERM');
  const exited = await worker.exited;
  expect(exited.code, exited.stderr).toBe(0);
  expect(exited.stdout).toMatch(/commitbus worker: stopped\n$/);

  const notified = await db.query<{ orderId: string; n: string }>(
    `SELECT "orderId", count(*) AS n FROM ${SCHEMA}.order_notifications GROUP BY "orderId" ORDER BY "orderId"`,
  );
  expect(notified.rows.map((r) => [r.orderId, Number(r.n)])).toEqual([...ids].sort().map((id) => [id, 1]));
  expect(
    await count(`SELECT count(*) AS n FROM ${SCHEMA}.orders WHERE id = $1`, [`${run?.[2]}-refused`]),
  ).toBe(0);
  for (const table of ['commitbus_events', 'commitbus_jobs', 'commitbus_dead_letters']) {
    expect(await count(`SELECT count(*) AS n FROM ${SCHEMA}.${table} WHERE bus = 'orders'`), table).toBe(0);
  }
  expect(await count(`SELECT count(*) AS n FROM ${SCHEMA}.commitbus_outbox`)).toBe(0);
});
