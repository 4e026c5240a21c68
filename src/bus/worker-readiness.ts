import type { DataSource } from 'typeorm';
import { describeError } from '../support/logger.js';
import type { Transport } from './transport.js';

/** How long `/readyz` waits for the transport or the database to answer before it reads them as away. */
export const READINESS_TIMEOUT_MS = 3_000;

/** What a worker's readiness is read from. */
export interface ReadinessParts {
  /** The worker's transport (`reachable`, when it has a server). */
  readonly transport: Pick<Transport, 'reachable'>;
  /** The bus's DataSource, if any (outbox, idempotent handlers). */
  readonly dataSource: DataSource | undefined;
  /** Whether the worker runs: started and not closing. */
  readonly running: () => boolean;
}

/**
 * The worker's `/readyz` probe: ready when the worker runs, its transport
 * answers (`Transport.reachable`) and the bus's DataSource, if it has one,
 * answers a `SELECT 1`; else why not.
 */
export function workerReadiness(parts: ReadinessParts): () => Promise<string | undefined> {
  return async () => {
    if (!parts.running()) return 'the worker is not running (starting or closing)';
    const transport = await answers(() => parts.transport.reachable?.('answer a readiness probe'));
    if (transport !== undefined) return `the transport cannot be reached: ${transport}`;
    const { dataSource } = parts;
    if (dataSource === undefined) return undefined;
    if (!dataSource.isInitialized) return 'the DataSource is not initialized';
    const database = await answers(() => dataSource.query('SELECT 1'));
    return database === undefined ? undefined : `the database cannot be reached: ${database}`;
  };
}

/** `undefined` when `call` settles well within the timeout, else what went wrong. */
async function answers(call: () => Promise<unknown> | undefined): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${READINESS_TIMEOUT_MS} ms`), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(call)
        .then(
          () => undefined,
          (error: unknown) => describeError(error).message,
        ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
