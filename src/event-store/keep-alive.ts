import type { QueryRunner } from 'typeorm';
import { ownStatement } from './batch-state.js';
import type { StoreDialect } from './store-tables.js';

/**
 * Runs `fn` (a batch or a replay, one transaction on `runner`) while a
 * `SELECT 1` goes out on the runner every third of `idleTimeoutMs`, so that
 * PostgreSQL's idle-in-transaction timeout ends the session of a writer whose
 * process stopped (frozen, stuck), never that of one whose batch is merely
 * long: many callbacks, each within `stepTimeoutMs`, with no statement of
 * their own between them. The statement is the writer's own: it flushes no
 * waiting write. SQLite has no such timeout.
 */
export async function keepingAlive<T>(
  runner: QueryRunner,
  dialect: StoreDialect,
  idleTimeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  if (dialect !== 'postgres') return fn();
  const timer = setInterval(
    () => {
      if (!runner.isReleased) void ownStatement(() => runner.query('SELECT 1')).catch(() => {});
    },
    Math.max(1, Math.floor(idleTimeoutMs / 3)),
  );
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/**
 * PostgreSQL: the server ends the writer's connection (and frees the writer
 * lock) when this process stops talking on it for `idleTimeoutMs`.
 */
export async function limitIdle(runner: QueryRunner, idleTimeoutMs: number): Promise<void> {
  const ms = String(idleTimeoutMs);
  await runner.query(`SELECT set_config('idle_in_transaction_session_timeout', $1, false)`, [ms]);
  // PostgreSQL 14 and later; before, a frozen writer between batches holds the lock until it wakes.
  await runner.query(`SELECT set_config('idle_session_timeout', $1, false)`, [ms]).catch(() => {});
  // PostgreSQL 14 and later, on Linux: a query still running when this process drops the
  // connection (a timed-out step's) is cancelled within a second, not when it ends.
  await runner.query(`SELECT set_config('client_connection_check_interval', '1000', false)`).catch(() => {});
}
