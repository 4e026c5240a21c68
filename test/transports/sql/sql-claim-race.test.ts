/**
 * Racing claims on PostgreSQL, as workers of many processes make them: of
 * jobs and of events, each row goes to exactly one claim, none is lost, and
 * a stale event is taken over by one drain only.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HandlerJob } from '../../../src/handlers/handler-job.js';
import { silentLogger } from '../../../src/support/logger.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import { SqlHandlerJobQueue } from '../../../src/transports/sql/sql.job-queue.js';
import { SqlDb } from '../../../src/transports/sql/sql-db.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import { sqlTestDatabases } from '../../helpers/sql.js';

const databases = sqlTestDatabases();
const ROWS = 300;
const CLAIMERS = 8;

function job(id: string): HandlerJob {
  return {
    kind: 'async',
    jobId: id,
    payload: '{}',
    handler: 'h',
    attempts: 3,
    backoff: { type: 'fixed', delayMs: 10 },
    delayMs: 0,
  };
}

/** Runs `CLAIMERS` loops of `take` until each gets nothing; resolves to everything taken, by claimer. */
async function race(take: (claimer: number) => Promise<string[]>): Promise<string[][]> {
  return Promise.all(
    Array.from({ length: CLAIMERS }, async (_, claimer) => {
      const taken: string[] = [];
      for (;;) {
        const got = await take(claimer);
        if (got.length === 0) return taken;
        taken.push(...got);
      }
    }),
  );
}

describe('racing claims on PostgreSQL', () => {
  const db = () => new SqlDb(databases.postgres);
  const bus = () => `race-${randomBytes(4).toString('hex')}`;

  it('hands each job to one claim only', async () => {
    const name = bus();
    const queue = new SqlHandlerJobQueue(db(), name, openSqlWakeups(db(), name, silentLogger));
    await queue.enqueue(Array.from({ length: ROWS }, (_, i) => job(`j${i}`)));
    const taken = await race(async (c) =>
      (await queue.claim(`w${c}`, 7, 60_000)).map((claimed) => claimed.job.jobId),
    );
    const all = taken.flat();
    expect(all.length).toBe(ROWS);
    expect(new Set(all).size).toBe(ROWS);
    expect(taken.filter((t) => t.length > 0).length).toBeGreaterThan(1);
  });

  it('hands each event to one drain only, and a stale one to one taker', async () => {
    const name = bus();
    const sql = db();
    const wakeups = openSqlWakeups(sql, name, silentLogger);
    const log = new SqlEventLog(sql, name, {
      dedupeWindowMs: 60_000,
      wakeups,
      lanes: async () => undefined,
    });
    await log.append(Array.from({ length: ROWS }, (_, i) => ({ id: `e${i}`, payload: `p${i}` })));
    const taken = await race(async (c) => (await log.read(`d${c}`, 7, 0)).map((e) => e.payload));
    const all = taken.flat();
    expect(all.length).toBe(ROWS);
    expect(new Set(all).size).toBe(ROWS);
    // Their drains died long ago: each row is stale once, and goes to one taker.
    await sql.execute(
      `UPDATE ${sql.table('commitbus_events')} SET locked_at = locked_at - 600000 WHERE bus = ?`,
      [name],
    );
    const stale = await race(async (c) => {
      const entry = await log.claimStale(`s${c}`, 300_000);
      return entry === undefined ? [] : [entry.payload];
    });
    expect(stale.flat().length).toBe(ROWS);
    expect(new Set(stale.flat()).size).toBe(ROWS);
    await wakeups.close();
  });
});
