import { sqliteTransport } from '../sql/sqlite-transport.js';

/**
 * The adapter a bus opens when given none (`createEventBus({ events })`):
 * the embedded default, SQLite in this process's memory (`sqliteTransport()`),
 * through the same SQL as production. It is the one place above the
 * adapters that names one, so the bus room names none.
 */
export function defaultTransport(): ReturnType<typeof sqliteTransport> {
  return sqliteTransport();
}
