/**
 * `commitbus/sql`: the SQL adapter (PostgreSQL, SQLite) on the application's
 * own TypeORM DataSource, its options, its stores and its errors.
 * @module commitbus/sql
 */
export { SqlDataSourceNotInitializedError } from './errors/sql-data-source-not-initialized.error.js';
export { SqlDialectUnsupportedError } from './errors/sql-dialect-unsupported.error.js';
export { SqlWorkerStartedError } from './errors/sql-worker-started.error.js';
export { SqliteDriverMissingError } from './errors/sqlite-driver-missing.error.js';
export { SqliteOpenFailedError } from './errors/sqlite-open-failed.error.js';
export { SqliteTransportClosedError } from './errors/sqlite-transport-closed.error.js';
export { SqlDeadLetterStore } from './sql.dead-letter-store.js';
export { SqlEventLog } from './sql.event-log.js';
export { SqlHandlerJobQueue } from './sql.job-queue.js';
export { SqlOrderingStore } from './sql.ordering-store.js';
export { SqlSchedulingRuleStore } from './sql.scheduling-rule-store.js';
export { SqlTransport } from './sql.transport.js';
export { SqlDb, type SqlDialect, type SqlRunner } from './sql-db.js';
export { sqlTransport } from './sql-transport.js';
export type { SqlTransportOptions } from './sql-transport-options.js';
export { type SqliteTransportOptions, sqliteTransport } from './sqlite-transport.js';
