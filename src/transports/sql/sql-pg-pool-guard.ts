import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../../support/logger.js';

interface PgPool {
  on(event: 'acquire' | 'connect', fn: (client: PgClientEvents) => void): void;
  /** Every client of the pool, idle or checked out (pg-pool's own field). */
  readonly _clients?: readonly PgClientEvents[];
}

interface PgClientEvents {
  on(event: 'error', fn: (error: unknown) => void): void;
}

const guarded = new WeakSet<object>();
const clients = new WeakSet<object>();

/**
 * Keeps a PostgreSQL connection that dies while checked out of TypeORM's
 * pool (`pg_terminate_backend`, a server restart) from crashing the process:
 * node-postgres emits `error` on such a client, and an `error` no listener
 * takes is thrown (TypeORM's own listener on a checked-out client is gone
 * after the first of the two a killed connection emits). Every client of the
 * pool, those there now and those it connects later, gets a listener that
 * logs the loss; whoever holds the client sees its statement fail, and the
 * next statement takes a new connection.
 * Does nothing on SQLite, before the DataSource is initialized, or twice.
 */
export function guardPgPool(dataSource: DataSource, logger: Logger): void {
  if (dataSource.options.type !== 'postgres' || !dataSource.isInitialized) return;
  // biome-ignore lint/suspicious/noExplicitAny: TypeORM's postgres driver keeps its pg pool untyped
  const pool = (dataSource.driver as any).master as PgPool | undefined;
  if (pool === undefined || guarded.has(pool)) return;
  guarded.add(pool);
  const guard = (client: PgClientEvents) => {
    if (clients.has(client)) return;
    clients.add(client);
    client.on('error', (error) => {
      logger.warn(
        { error: describeError(error).message },
        'commitbus: a PostgreSQL connection died; the next statement takes a new one',
      );
    });
  };
  for (const client of pool._clients ?? []) guard(client);
  pool.on('connect', guard);
  pool.on('acquire', guard);
}
