import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../../support/logger.js';

interface PgPool {
  on(event: 'acquire', fn: (client: PgClientEvents) => void): void;
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
 * takes is thrown. Each client the pool hands out gets a listener that logs
 * the loss; whoever holds the client sees its statement fail, and the next
 * statement takes a new connection. TypeORM guards idle clients itself.
 * Does nothing on SQLite, before the DataSource is initialized, or twice.
 */
export function guardPgPool(dataSource: DataSource, logger: Logger): void {
  if (dataSource.options.type !== 'postgres' || !dataSource.isInitialized) return;
  // biome-ignore lint/suspicious/noExplicitAny: TypeORM's postgres driver keeps its pg pool untyped
  const pool = (dataSource.driver as any).master as PgPool | undefined;
  if (pool === undefined || guarded.has(pool)) return;
  guarded.add(pool);
  pool.on('acquire', (client) => {
    if (clients.has(client)) return;
    clients.add(client);
    client.on('error', (error) => {
      logger.warn(
        { error: describeError(error).message },
        'commitbus: a PostgreSQL connection of the SQL transport died; the next statement takes a new one',
      );
    });
  });
}
