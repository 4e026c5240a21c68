import type { DataSource } from 'typeorm';

/** A PostgreSQL backend holding an advisory lock. */
export interface AdvisoryLockHolder {
  /** Its application_name. */
  readonly label: string;
  /** Its backend pid (for pg_terminate_backend). */
  readonly backend: number;
  /** Whether it is inside a transaction of more than one statement (a writer's batch). */
  readonly inTransaction: boolean;
}

/**
 * The backends whose application_name starts with `prefix` that hold a
 * granted advisory lock (the event store writer's), read from pg_locks.
 */
export async function advisoryLockHolders(db: DataSource, prefix: string): Promise<AdvisoryLockHolder[]> {
  // A lone statement has a transaction too (xact_start = query_start): only a longer one counts.
  const rows: { application_name: string; pid: number; in_transaction: boolean }[] = await db.query(
    `SELECT a.application_name, a.pid,
            (a.state = 'idle in transaction' OR a.xact_start < a.query_start) AS in_transaction
     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE $1`,
    [`${prefix}%`],
  );
  return rows.map((r) => ({
    label: r.application_name,
    backend: r.pid,
    inTransaction: r.in_transaction === true,
  }));
}
