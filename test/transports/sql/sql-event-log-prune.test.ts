/**
 * The SQL event log prunes expired dedupe ids in the publishing transaction,
 * which on the transport's own DataSource is a unit of work's: on
 * PostgreSQL a second publisher skips the expired ids a first one is
 * deleting instead of waiting for its transaction to end.
 */
import { describe, expect, it } from 'vitest';
import type { OutgoingEvent } from '../../../src/events/outgoing-event.js';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlDb } from '../../../src/transports/sql/index.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { countRows } from '../../helpers/sql-uow.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();

const event = (id: string): OutgoingEvent => ({ id, payload: `{"id":"${id}"}` });

describe('pruning expired dedupe ids (postgres)', () => {
  it('a publisher does not wait for another transaction pruning the same expired ids', async () => {
    const bus = `prune-${Date.now()}`;
    const db = new SqlDb(databases.postgres);
    const wakeups = openSqlWakeups(db, bus, silentLogger);
    const log = new SqlEventLog(db, bus, {
      dedupeWindowMs: 1,
      wakeups,
      lanes: async () => undefined,
      pruneIntervalMs: 0,
    });
    try {
      await log.append(['old1', 'old2', 'old3'].map(event));
      const ids = db.table('commitbus_event_ids');
      await waitFor('the three ids to expire', async () => {
        const [row] = await db.query<{ n: string }>(
          `SELECT COUNT(*) AS n FROM ${ids} WHERE bus = ? AND expires_at <= ${db.now}`,
          [bus],
        );
        return Number(row?.n) === 3;
      });
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let pruned = false;
      // The first publisher's transaction deletes the expired ids and stays open.
      const first = db.transaction(async (tx) => {
        await log.appendWith(tx, [event('first')]);
        pruned = true;
        await held;
      });
      await waitFor('the first transaction to prune', () => pruned);
      let secondDone = false;
      const second = log.append([event('second')]).then(() => {
        secondDone = true;
      });
      try {
        await waitFor('the second publisher to commit while the first is open', () => secondDone, {
          timeoutMs: 5_000,
        });
      } finally {
        release();
        await Promise.all([first, second]);
      }
      expect(await countRows(databases.postgres, 'commitbus_events', 'bus = ?', [bus])).toBe(5);
      expect(await countRows(databases.postgres, 'commitbus_event_ids', 'bus = ?', [bus])).toBe(2);
    } finally {
      await wakeups.close();
    }
  });
});
