/**
 * The embedded transport's stores on their own, for room tests that drive a
 * store directly (a drain's dead letters, an event log) rather than a bus:
 * the SQL transport on SQLite in this process's memory, as a bus given no
 * transport runs on. Closed after the file's tests.
 */
import { afterAll } from 'vitest';
import type { CommitbusOptions } from '../../src/config/commitbus-options.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { silentLogger } from '../../src/support/logger.js';
import type { SqlTransport } from '../../src/transports/sql/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';

const opened: SqlTransport[] = [];
let hooked = false;

/**
 * A fresh SQL transport on its own in-memory SQLite (its tables created at
 * its first statement), closed by a hook of the calling file; `config`
 * layered over the defaults (its `name` is the bus the rows carry).
 */
export function embeddedTransport(config: CommitbusOptions = {}): SqlTransport {
  if (!hooked) {
    hooked = true;
    afterAll(async () => {
      await Promise.all(opened.splice(0).map((t) => t.close()));
    });
  }
  const transport = sqliteTransport({ pollMs: 20 }).open({
    config: resolveOptions(config),
    logger: silentLogger,
  });
  opened.push(transport);
  return transport;
}
