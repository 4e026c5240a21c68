import { randomUUID } from 'node:crypto';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminQuery } from './pg-admin.js';

/** Statements a role ran during a counted run, as PostgreSQL saw them. */
export interface StatementCount {
  /** How they were counted. */
  readonly source: 'log_statement' | 'pg_stat_statements';
  readonly total: number;
  /** Statement text (whitespace collapsed) and how many times it ran, most first. */
  readonly byText: readonly (readonly [string, number])[];
}

const LOG_DIR = '/var/log/postgresql';
// `%m [%p] %q%u@%d `, the default log_line_prefix of Debian's PostgreSQL packages.
const ENTRY_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/;
const STATEMENT = /^\S+ \S+ \S+ \[\d+\] (\S+)@\S+ LOG: {2}(?:statement|execute [^:]*): ([\s\S]*)$/;

/**
 * Counts the statements each side runs, by PostgreSQL itself: every side gets
 * a role of its own with `log_statement = 'all'` (a superuser, so it reaches
 * every peer's schema as the bench's admin does), and what that role logged
 * during a run is read back from the server log. When the log cannot be read,
 * `pg_stat_statements` (if installed) counts calls per role instead.
 */
export class StatementCounter {
  private readonly roles: string[] = [];

  private constructor(
    private readonly adminUrl: string,
    /** The server log file, or undefined when pg_stat_statements counts. */
    private readonly logFile: string | undefined,
  ) {}

  /** A counter on the log if readable, else on pg_stat_statements; undefined when neither is there. */
  static async open(adminUrl: string): Promise<StatementCounter | undefined> {
    const logFile = await findLogFile();
    if (logFile !== undefined) return new StatementCounter(adminUrl, logFile);
    try {
      await adminQuery(adminUrl, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await adminQuery(adminUrl, 'SELECT count(*) FROM pg_stat_statements');
      return new StatementCounter(adminUrl, undefined);
    } catch {
      return undefined;
    }
  }

  /** How statements are counted, for the report. */
  describe(): string {
    return this.logFile !== undefined
      ? `log_statement = 'all' per role, read from ${this.logFile}`
      : 'pg_stat_statements calls per role (the server log was not readable)';
  }

  /** A new login role whose sessions log every statement. */
  async role(side: string): Promise<string> {
    const name = `bench_count_${side}_${randomUUID().slice(0, 6)}`;
    await adminQuery(this.adminUrl, `CREATE ROLE ${name} LOGIN SUPERUSER`);
    this.roles.push(name);
    if (this.logFile !== undefined)
      await adminQuery(this.adminUrl, `ALTER ROLE ${name} SET log_statement = 'all'`);
    return name;
  }

  /** Statements `role` ran while `fn` ran. */
  async count(role: string, fn: () => Promise<void>): Promise<StatementCount> {
    if (this.logFile === undefined) return this.countByStats(role, fn);
    const from = (await stat(this.logFile)).size;
    await fn();
    const to = await settledSize(this.logFile);
    const text = await readRange(this.logFile, from, to);
    return { source: 'log_statement', ...tallyStatements(text, role) };
  }

  /** Resets and drops every role it made. */
  async cleanup(): Promise<void> {
    for (const role of this.roles.splice(0)) {
      await adminQuery(this.adminUrl, `ALTER ROLE ${role} RESET ALL`).catch(() => {});
      await adminQuery(this.adminUrl, `DROP OWNED BY ${role}; DROP ROLE IF EXISTS ${role}`);
    }
  }

  private async countByStats(role: string, fn: () => Promise<void>): Promise<StatementCount> {
    const oid = (await adminQuery(this.adminUrl, 'SELECT oid FROM pg_roles WHERE rolname = $1', [role]))
      .rows[0]?.oid as number;
    await adminQuery(this.adminUrl, 'SELECT pg_stat_statements_reset($1)', [oid]);
    await fn();
    const rows = (
      await adminQuery(
        this.adminUrl,
        'SELECT query, calls::int AS calls FROM pg_stat_statements WHERE userid = $1 ORDER BY calls DESC',
        [oid],
      )
    ).rows as { query: string; calls: number }[];
    const byText = rows.map((r) => [collapse(r.query), r.calls] as const);
    return { source: 'pg_stat_statements', total: byText.reduce((s, [, n]) => s + n, 0), byText };
  }
}

/** Counts the LOG statement entries of `role` in a slice of the server log. */
export function tallyStatements(text: string, role: string): Omit<StatementCount, 'source'> {
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (ENTRY_START.test(line) || entries.length === 0) entries.push(line);
    else entries[entries.length - 1] += `\n${line}`;
  }
  const byText = new Map<string, number>();
  let total = 0;
  for (const entry of entries) {
    const match = STATEMENT.exec(entry);
    if (match === null || match[1] !== role) continue;
    total++;
    const key = collapse(match[2] ?? '');
    byText.set(key, (byText.get(key) ?? 0) + 1);
  }
  return { total, byText: [...byText].sort((a, b) => b[1] - a[1]) };
}

/** Whitespace collapsed, `IN` lists of any length as one (`IN ($2, $3)` and `IN ($2)` alike). */
function collapse(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/ IN \(\$\d+(?:, \$\d+)*\)/g, ' IN ($...)')
    .trim();
}

async function findLogFile(): Promise<string | undefined> {
  const given = process.env.BENCH_PG_LOG;
  const candidates = given !== undefined ? [given] : await newestLogs();
  for (const file of candidates) {
    try {
      const handle = await open(file, 'r');
      await handle.close();
      return file;
    } catch {
      // Not readable by this user: try the next, then pg_stat_statements.
    }
  }
  return undefined;
}

async function newestLogs(): Promise<string[]> {
  try {
    const names = (await readdir(LOG_DIR)).filter((n) => n.endsWith('.log'));
    const withTimes = await Promise.all(
      names.map(async (n) => ({ file: join(LOG_DIR, n), mtime: (await stat(join(LOG_DIR, n))).mtimeMs })),
    );
    return withTimes.sort((a, b) => b.mtime - a.mtime).map((f) => f.file);
  } catch {
    return [];
  }
}

// The server writes its log asynchronously to the statements: wait until it stops growing for a moment.
async function settledSize(file: string): Promise<number> {
  let size = (await stat(file)).size;
  // Other sessions may log too: give up waiting after a couple of seconds.
  for (let quiet = 0, tries = 0; quiet < 2 && tries < 15; tries++) {
    await sleep(150);
    const now = (await stat(file)).size;
    quiet = now === size ? quiet + 1 : 0;
    size = now;
  }
  return size;
}

async function readRange(file: string, from: number, to: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, to - from));
    await handle.read(buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
