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
