import { CommitbusError } from '../../../support/commitbus-error.js';

/**
 * `sqliteTransport()` (and so a bus given no transport, and
 * `memoryTransport()`) runs on SQLite through the `better-sqlite3` package,
 * which is not installed where commitbus can load it, or is installed but
 * does not load (a native addon built for another Node.js: its cause says
 * what failed).
 */
export class SqliteDriverMissingError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQLITE_DRIVER_MISSING';

  /**
   * @param what - what needed it, as the message names it (`the embedded transport`, `the SQLite transport on ./events.sqlite`).
   * @param cause - why an installed package did not load; absent when it is not installed.
   */
  constructor(what: string, cause?: unknown) {
    const problem =
      cause === undefined
        ? 'which is not installed: npm install better-sqlite3@12 (it builds a native addon)'
        : `which is installed but does not load (${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}): npm rebuild better-sqlite3 for this Node.js (better-sqlite3 13 needs Node.js 22; take 12 on Node.js 20)`;
    super(
      `${what} runs on SQLite through the better-sqlite3 package, ${problem}, or give the bus another transport (redisTransport({ url }) from 'commitbus/redis', sqlTransport({ dataSource }) from 'commitbus/sql')`,
      cause === undefined ? undefined : { cause },
    );
  }
}
