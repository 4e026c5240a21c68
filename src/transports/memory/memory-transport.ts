import { sqliteTransport } from '../sql/sqlite-transport.js';

/**
 * The in-process adapter, now the SQL transport on SQLite in this
 * process's memory: `sqliteTransport()`, under its old name. Events, jobs
 * and dead letters go through the same statements as production; nothing
 * survives the process and no other process sees it. The HTTP router does
 * not run on it (Redis only).
 *
 * @deprecated Use `sqliteTransport()` from `commitbus/sql` (`{ file }` for
 * a database that survives a restart). Removed in 0.3.
 */
export function memoryTransport(): ReturnType<typeof sqliteTransport> {
  return sqliteTransport();
}
