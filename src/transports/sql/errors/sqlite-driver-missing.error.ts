import { CommitbusError } from '../../../support/commitbus-error.js';

/**
 * `sqliteTransport()` (and so a bus given no transport, and
 * `memoryTransport()`) runs on SQLite through the `better-sqlite3` package,
 * which is not installed where commitbus can load it.
 */
export class SqliteDriverMissingError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQLITE_DRIVER_MISSING';

  /** @param what - what needed it, as the message names it (`the embedded transport`, `the SQLite transport on ./events.sqlite`). */
  constructor(what: string) {
    super(
      `${what} runs on SQLite through the better-sqlite3 package, which is not installed: npm install better-sqlite3@12 (it builds a native addon), or give the bus another transport (redisTransport({ url }) from 'commitbus/redis', sqlTransport({ dataSource }) from 'commitbus/sql')`,
    );
  }
}
