import pg from 'pg';

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

/** Thrown when the bench's PostgreSQL cannot be reached. */
export class BenchDatabaseUnreachableError extends Error {
  readonly code = 'BENCH_DATABASE_UNREACHABLE';
}

/** Resolves once PostgreSQL at `url` answers; else a {@link BenchDatabaseUnreachableError} saying what to do. */
export async function assertReachable(url: string): Promise<void> {
  try {
    await adminQuery(url, 'SELECT 1');
  } catch (error) {
    throw new BenchDatabaseUnreachableError(
      `the SQL bench needs PostgreSQL at ${redact(url)} and could not reach it (${(error as Error).message}); ` +
        'start it, or point DATABASE_URL at one (a superuser: the bench creates schemas and roles)',
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
