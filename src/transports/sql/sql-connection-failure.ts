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

/** Whether `error` means the database is out of reach rather than refusing a statement. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof TransportUnavailableError) return true;
  const message = error instanceof Error ? error.message : '';
  if (LOST_CONNECTION.test(message)) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  const driverCode = (error as { driverError?: { code?: unknown } } | undefined)?.driverError?.code;
  return [code, driverCode].some((c) => typeof c === 'string' && (UNREACHABLE.has(c) || c.startsWith('08')));
}

/** `error` as a `TransportUnavailableError` naming the database at `where` when it is a connection failure; else as it is. */
export function asUnavailable(action: string, where: string, error: unknown): unknown {
  if (error instanceof TransportUnavailableError || !isConnectionFailure(error)) return error;
  return new TransportUnavailableError(action, where, {
    cause: error,
    fix: 'Is the database running, and is the DataSource given to sqlTransport() right?',
  });
}
