import { TransportUnavailableError } from '../../support/errors/transport-unavailable.error.js';

/** What node-postgres says when a connection dies or cannot be made in time (such errors carry no code). */
const LOST_CONNECTION =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** Codes of a database out of reach (Node's socket codes, PostgreSQL's shutdown and connection classes). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
]);

/** The codes of `error` and of the driver's error TypeORM wrapped in it. */
function codesOf(error: unknown): string[] {
  const code = (error as { code?: unknown } | undefined)?.code;
  const driverCode = (error as { driverError?: { code?: unknown } } | undefined)?.driverError?.code;
  return [code, driverCode].filter((c): c is string => typeof c === 'string');
}

/**
 * Whether `error` is SQLite's `SQLITE_BUSY` (or `SQLITE_LOCKED`): another
 * connection held the write lock past the busy timeout, and nothing of the
 * statement was done, so it may be run again.
 */
function isSqliteBusy(error: unknown): boolean {
  return codesOf(error).some((c) => c.startsWith('SQLITE_BUSY') || c.startsWith('SQLITE_LOCKED'));
}

/**
 * Whether `error` means the database is out of reach for now (down, or on
 * SQLite locked by another connection past the busy timeout) rather than
 * refusing a statement.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof TransportUnavailableError) return true;
  const message = error instanceof Error ? error.message : '';
  if (LOST_CONNECTION.test(message) || isSqliteBusy(error)) return true;
  return codesOf(error).some((c) => UNREACHABLE.has(c) || c.startsWith('08'));
}

/** `error` as a `TransportUnavailableError` naming the database at `where` when it is a connection failure; else as it is. */
export function asUnavailable(action: string, where: string, error: unknown): unknown {
  if (error instanceof TransportUnavailableError || !isConnectionFailure(error)) return error;
  return new TransportUnavailableError(action, where, {
    cause: error,
    fix: isSqliteBusy(error)
      ? "Another connection held the file's write lock longer than SQLite's busy timeout (better-sqlite3's timeout, 5 s by default): a long transaction, or a process stopped in one. Nothing of the statement was written; it may be run again"
      : 'Is the database running, and is the DataSource given to sqlTransport() right?',
  });
}
