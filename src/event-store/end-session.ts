import type { DataSource, QueryRunner } from 'typeorm';
import type { Logger } from '../support/logger.js';

/**
 * PostgreSQL: closes the writer's connection a step timed out on (its
 * abandoned code may still have a query in flight there, holding the
 * batch's row locks and the writer lock), then ends its server process
 * `pid` and waits for that, up to 3 s: an idle session ends when the
 * connection closes, a busy one within `client_connection_check_interval`.
 */
export async function endSession(
  runner: QueryRunner,
  pid: number | undefined,
  dataSource: DataSource,
  logger: Logger,
): Promise<void> {
  await closeConnection(runner, 'a step of the event store timed out on this connection');
  if (pid === undefined) return;
  const ended = await Promise.race([
    dataSource
      // Gone already (closing the connection ended an idle session) counts as ended.
      .query(
        'SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1) OR pg_terminate_backend($1, 2000) AS ended',
        [pid],
      )
      .then((rows: { ended: boolean }[]) => rows[0]?.ended === true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 3_000)),
  ]).catch(() => false);
  if (!ended) {
    logger.warn(
      { pid },
      'event store writer: the server process of the connection a step timed out on did not end within 2 s; its locks go when it does',
    );
  }
}

/**
 * PostgreSQL: has pg destroy the pooled connection behind `runner` (with
 * `reason`) instead of lending it out again. Returns false where the driver
 * has no such call (SQLite), and the caller releases the runner as usual.
 */
export async function closeConnection(runner: QueryRunner, reason: string): Promise<boolean> {
  const pg = runner as unknown as { releasePostgresConnection?(error: Error): Promise<void> };
  if (pg.releasePostgresConnection === undefined) return false;
  await pg.releasePostgresConnection(new Error(reason)).catch(() => {});
  return true;
}
