import type { DataSource } from 'typeorm';

/** Options of `sqlTransport()`. */
export interface SqlTransportOptions {
  /**
   * The application's TypeORM DataSource, on PostgreSQL (`type: 'postgres'`)
   * or SQLite (`type: 'better-sqlite3'`), with `COMMITBUS_ENTITIES` in its
   * entities (or `COMMITBUS_MIGRATIONS` run). It may be initialized after
   * the bus is created, but before the bus publishes or starts a worker.
   */
  readonly dataSource: DataSource;
  /**
   * How often, in milliseconds, a worker looks for work no wake-up told it
   * of: events published by another process on SQLite, a missed `NOTIFY`,
   * delayed work coming due. From `10` to `3_600_000`.
   * @defaultValue `1_000`
   */
  readonly pollMs?: number;
  /**
   * How many drains (readers of the events table running sync handlers)
   * each worker process runs side by side, claiming different events. More
   * than one shortens the wait of an event published while a drain is
   * busy with its batch. From `1` to `64`.
   * @defaultValue `3` on PostgreSQL, `1` on SQLite (one connection: more would only queue)
   */
  readonly drains?: number;
}

/** The fewest and most drains per worker the SQL transport takes. */
export const SQL_DRAINS_RANGE = { min: 1, max: 64 } as const;

/** The shortest and longest `pollMs` the SQL transport takes (`COMMITBUS_SQL_POLL_MS` too), in milliseconds. */
export const SQL_POLL_MS_RANGE = { min: 10, max: 3_600_000 } as const;
