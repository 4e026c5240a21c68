import pg from 'pg';
import { BenchSetupError } from '../bench-setup.error.js';

/** Runs statements on a connection of its own, closed after. */
export async function adminQuery(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/** Resolves once PostgreSQL at `url` answers; else a `BENCH_DATABASE_UNREACHABLE` {@link BenchSetupError} saying what to do. */
export async function assertReachable(url: string): Promise<void> {
  try {
    await adminQuery(url, 'SELECT 1');
  } catch (error) {
    throw new BenchSetupError(
      `the SQL bench needs PostgreSQL at ${redact(url)} and could not reach it (${(error as Error).message}); ` +
        'start it, or point DATABASE_URL at one (a superuser: the bench creates schemas and roles)',
      'BENCH_DATABASE_UNREACHABLE',
      { cause: error },
    );
  }
}

/** `url` connected as `user` instead. */
export function asUser(url: string, user: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = '';
  return parsed.toString();
}

/** `url` without its password. */
export function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

/** The schema of the business rows the peers insert: `bench_row(id, side, unit)`. */
export async function createRowSchema(url: string, schema: string): Promise<void> {
  await adminQuery(
    url,
    `CREATE SCHEMA ${schema};
     CREATE TABLE ${schema}.bench_row (id serial PRIMARY KEY, side varchar(16) NOT NULL, unit integer NOT NULL)`,
  );
}

/** Drops `schema` and all in it, if it exists. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await adminQuery(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}
