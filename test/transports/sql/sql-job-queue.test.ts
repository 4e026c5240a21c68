/**
 * The SQL job queue's worker methods (claim, complete, retryAt, extend) on
 * PostgreSQL and SQLite: leases, due times and the once-per-id rule.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HandlerJob } from '../../../src/handlers/handler-job.js';
import { SqlHandlerJobQueue } from '../../../src/transports/sql/sql.job-queue.js';
import { SqlDb } from '../../../src/transports/sql/sql-db.js';
import type { SqlWakeups } from '../../../src/transports/sql/sql-wakeups.js';
import { sqlTestDatabases } from '../../helpers/sql.js';

const databases = sqlTestDatabases();

/** Wake-ups that record what they were told. */
function recordingWakeups(seen: string[]): SqlWakeups {
  return {
    notifyIn: async (_tx, topic) => void seen.push(`in:${topic}`),
    local: (topic) => void seen.push(`local:${topic}`),
    wait: async () => {},
    interrupt: () => {},
    close: async () => {},
  };
}

function job(id: string, extra: Partial<HandlerJob> = {}): HandlerJob {
  return {
    kind: 'async',
    jobId: id,
    payload: '{}',
    handler: 'h',
    attempts: 3,
    backoff: { type: 'fixed', delayMs: 10 },
    delayMs: 0,
    ...extra,
  };
}

describe.each([
  ['postgres', () => databases.postgres],
  ['sqlite', () => databases.sqlite],
] as const)('SqlHandlerJobQueue on %s', (_name, dataSource) => {
  const open = (seen: string[] = []) =>
    new SqlHandlerJobQueue(
      new SqlDb(dataSource()),
      `bus-${randomBytes(4).toString('hex')}`,
      recordingWakeups(seen),
    );

  it('adds a job id once, wakes workers, and claims due jobs only, each by one worker', async () => {
    const seen: string[] = [];
    const queue = open(seen);
    await queue.enqueue([job('a'), job('a'), job('later', { delayMs: 60_000 })]);
    await queue.enqueue([job('a', { handler: 'other' })]);
    expect(seen).toEqual(['in:jobs', 'local:jobs', 'in:jobs', 'local:jobs']);
    const claimed = await queue.claim('w1', 10, 30_000);
    expect(claimed.map((c) => [c.job.jobId, c.job.handler, c.attemptsMade])).toEqual([['a', 'h', 0]]);
    expect(await queue.claim('w2', 10, 30_000)).toEqual([]);
    expect((await queue.counts()).running).toBe(1);
    expect(await queue.complete('a')).toBe(true);
    expect(await queue.complete('a')).toBe(false);
    expect((await queue.counts()).waiting).toBe(1);
  });

  it('retryAt releases a job for later with its runs; a lapsed lease is claimable again; extend keeps one', async () => {
    const queue = open();
    await queue.enqueue([job('a'), job('b')]);
    expect(await queue.claim('w1', 1, 30_000)).toHaveLength(1);
    expect(await queue.claim('w1', 1, -1)).toHaveLength(1); // a lease already over
    expect(await queue.extend('w2', ['a', 'b'], 30_000)).toBe(0);
    expect(await queue.extend('w1', ['b'], 30_000)).toBe(1);
    expect(await queue.claim('w2', 10, 30_000)).toEqual([]);

    const failed = job('a', { failures: [] });
    expect(await queue.retryAt('a', 0, 1, failed)).toBe(true);
    const again = await queue.claim('w2', 10, 30_000);
    expect(again.map((c) => [c.job.jobId, c.attemptsMade])).toEqual([['a', 1]]);
    expect((await queue.counts()).running).toBe(2);
    expect(await queue.retryAt('a', Date.now() + 60_000, 2, failed)).toBe(true);
    expect(await queue.claim('w3', 10, 30_000)).toEqual([]);
    expect((await queue.counts()).retrying).toBe(1);
    expect(await queue.retryAt('missing', 0, 1, failed)).toBe(false);
  });
});
