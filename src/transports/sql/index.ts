/**
 * `commitbus/sql`: the SQL adapter (PostgreSQL, SQLite) and its stores.
 * @module commitbus/sql
 */
export { SqlDataSourceNotInitializedError } from './errors/sql-data-source-not-initialized.error.js';
export { SqlDialectUnsupportedError } from './errors/sql-dialect-unsupported.error.js';
export { SqlTransport } from './sql.transport.js';
export { SqlDb, type SqlDialect, type SqlRunner } from './sql-db.js';
export { sqlTransport } from './sql-transport.js';
export type { SqlTransportOptions } from './sql-transport-options.js';
