/**
 * The databases of the SQL crash test (`test/chaos/sql-crash.test.ts`): a
 * fresh PostgreSQL schema, or a SQLite file in WAL mode, with the test's
 * tables and commitbus's; the environment its child processes read; what the
 * processes left there, read back for the test's assertions.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMITBUS_ENTITIES } from '../../src/index.js';
import { SqlDb } from '../../src/transports/sql/index.js';
import { SQL_CHAOS_ENTITIES } from '../fixtures/sql-chaos-app.js';
import { closeSchema, openSchema } from './postgres.js';

/** The databases the SQL crash test runs on. */
export type SqlChaosDialect = 'postgres' | 'sqlite';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One database of the SQL crash test. */
export interface SqlChaosDatabase {
  readonly dialect: SqlChaosDialect;
  /** The test's own DataSource on it. */
  readonly dataSource: DataSource;
  /** What every child process reads to open the same database. */
  readonly env: Record<string, string>;
  /** The name the workers' PostgreSQL connections carry (`application_name`). */
  readonly workerApp: string;
  /** Closes the DataSource and drops the schema or deletes the file. */
  remove(): Promise<void>;
}

/** Creates a fresh database of `dialect` with the test's tables and commitbus's. */
export async function openSqlChaosDatabase(dialect: SqlChaosDialect): Promise<SqlChaosDatabase> {
  const id = randomBytes(4).toString('hex');
  const workerApp = `sqlchaos-worker-${id}`;
  if (dialect === 'postgres') {
    const schema = `sqlchaos_${id}`;
    const dataSource = await openSchema(schema, [...SQL_CHAOS_ENTITIES]);
    return {
      dialect,
      dataSource,
      workerApp,
      env: {
        SQL_CHAOS_DIALECT: dialect,
        DATABASE_URL,
        SQL_CHAOS_SCHEMA: schema,
        SQL_CHAOS_WORKER_APP: workerApp,
      },
      remove: () => closeSchema(dataSource),
    };
  }
  const file = join(tmpdir(), `commitbus-sqlchaos-${id}.sqlite`);
  const dataSource = await new DataSource({
    type: 'better-sqlite3',
    database: file,
    enableWAL: true,
    timeout: 30_000,
    entities: [...SQL_CHAOS_ENTITIES, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
  return {
    dialect,
    dataSource,
    workerApp,
    env: { SQL_CHAOS_DIALECT: dialect, SQL_CHAOS_SQLITE: file, SQL_CHAOS_WORKER_APP: workerApp },
    remove: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await Promise.all(['', '-wal', '-shm'].map((end) => rm(`${file}${end}`, { force: true })));
    },
  };
}

/** Terminates every PostgreSQL connection named `application`; resolves to how many. */
export async function terminateBackends(dataSource: DataSource, application: string): Promise<number> {
  const [row] = await dataSource.query(
    'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1',
    [application],
  );
  return Number(row?.n ?? 0);
}

/** What the processes left: outcomes of the units of work, handled ids, commitbus's rows. */
export interface SqlChaosOutcome {
  /** Event ids of the units of work that committed. */
  readonly committed: ReadonlySet<string>;
  /** Event ids of the units of work that rolled back (those recorded). */
  readonly rolledBack: ReadonlySet<string>;
  /** Units of work with an outcome (committed or rolled back). */
  readonly settled: number;
  /** Per handler: how many rows each event id has. */
  readonly handled: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Rows left in commitbus's tables of the bus. */
  readonly left: { events: number; jobs: number; outbox: number; deadLetters: number };
}

/** Reads {@link SqlChaosOutcome} of bus `bus`. */
export async function readSqlChaosOutcome(dataSource: DataSource, bus: string): Promise<SqlChaosOutcome> {
  const db = new SqlDb(dataSource);
  const items = await db.query<{ event_id: string }>(`SELECT event_id FROM ${db.table('sql_chaos_items')}`);
  const rolled = await db.query<{ event_id: string }>(
    `SELECT event_id FROM ${db.table('sql_chaos_rolled_back')}`,
  );
  const runs = await db.query<{ handler: string; event_id: string; n: unknown }>(
    `SELECT handler, event_id, COUNT(*) AS n FROM ${db.table('sql_chaos_handled')} GROUP BY handler, event_id`,
  );
  const handled = new Map<string, Map<string, number>>();
  for (const run of runs) {
    const of = handled.get(run.handler) ?? new Map<string, number>();
    of.set(run.event_id, Number(run.n));
    handled.set(run.handler, of);
  }
  const count = async (table: string, byBus: boolean) => {
    const [row] = await db.query<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM ${db.table(table)}${byBus ? ' WHERE bus = ?' : ''}`,
      byBus ? [bus] : [],
    );
    return Number(row?.n ?? 0);
  };
  return {
    committed: new Set(items.map((r) => r.event_id)),
    rolledBack: new Set(rolled.map((r) => r.event_id)),
    settled: items.length + rolled.length,
    handled,
    left: {
      events: await count('commitbus_events', true),
      jobs: await count('commitbus_jobs', true),
      outbox: await count('commitbus_outbox', false),
      deadLetters: await count('commitbus_dead_letters', true),
    },
  };
}

/**
 * The dead letters of bus `bus` (at most 5): id, handler, kind, reason and
 * each attempt's error, for a chaos test's timeout message to say why a
 * letter was left where none should be.
 */
export async function sqlChaosLettersLeft(dataSource: DataSource, bus: string): Promise<unknown[]> {
  const db = new SqlDb(dataSource);
  const rows = await db.query<{
    id: string;
    handler: string | null;
    kind: string;
    reason: string;
    data: string;
  }>(
    `SELECT id, handler, kind, reason, data FROM ${db.table('commitbus_dead_letters')} WHERE bus = ? LIMIT 5`,
    [bus],
  );
  return rows.map(({ data, ...row }) => {
    let attempts: unknown;
    try {
      attempts = (JSON.parse(data) as { attempts?: { error?: string }[] }).attempts?.map((a) => a.error);
    } catch {
      attempts = 'unreadable';
    }
    return { ...row, attempts };
  });
}
