/**
 * The SQL job queue's worker methods (claim, complete, retryAfter, extend) on
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
    notification: (topic) => ['commitbus_recording', topic],
    local: (topic) => void seen.push(`local:${topic}`),
    wait: async () => {},
    interrupt: () => {},
    resume: () => {},
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

  it('retryAfter releases a job for later with its runs; a lapsed lease is claimable again; extend keeps one', async () => {
    const queue = open();
    await queue.enqueue([job('a'), job('b')]);
    const [a] = await queue.claim('w1', 1, 30_000);
    const [b] = await queue.claim('w1', 1, -1); // a lease already over
    expect(a?.lease).not.toBe(b?.lease);
    expect(await queue.extend([{ jobId: 'a', lease: b?.lease ?? '' }], 30_000)).toBe(0);
    expect(await queue.extend([{ jobId: 'b', lease: b?.lease ?? '' }], 30_000)).toBe(1);
    expect(await queue.claim('w2', 10, 30_000)).toEqual([]);

    const failed = job('a', { failures: [] });
    expect(await queue.retryAfter('a', 0, 1, failed)).toBe(true);
    const again = await queue.claim('w2', 10, 30_000);
    expect(again.map((c) => [c.job.jobId, c.attemptsMade])).toEqual([['a', 1]]);
    expect((await queue.counts()).running).toBe(2);
    expect(await queue.retryAfter('a', 60_000, 2, failed)).toBe(true);
    expect(await queue.claim('w3', 10, 30_000)).toEqual([]);
    expect((await queue.counts()).retrying).toBe(1);
    expect(await queue.retryAfter('missing', 0, 1, failed)).toBe(false);
  });

  it('claiming an expired lease counts a delivery; a run let go starts counting again', async () => {
    const queue = open();
    await queue.enqueue([job('a')]);
    const first = await queue.claim('w1', 1, -1);
    const second = await queue.claim('w2', 1, -1);
    const third = await queue.claim('w3', 1, 30_000);
    expect([first, second, third].map((c) => c[0]?.deliveries)).toEqual([1, 2, 3]);
    expect(await queue.retryAfter('a', 0, 1, job('a'), third[0]?.lease)).toBe(true);
    expect((await queue.claim('w1', 1, 30_000))[0]?.deliveries).toBe(1);
  });

  it('a superseded claim cannot complete, retry, extend or write under the lease', async () => {
    const queue = open();
    await queue.enqueue([job('a')]);
    const [stalled] = await queue.claim('w1', 1, -1);
    const [current] = await queue.claim('w2', 1, 30_000);
    const old = stalled?.lease ?? '';
    expect(await queue.complete('a', old)).toBe(false);
    expect(await queue.retryAfter('a', 0, 1, job('a'), old)).toBe(false);
    expect(await queue.extend([{ jobId: 'a', lease: old }], 30_000)).toBe(0);
    const wrote: string[] = [];
    expect(await queue.whileHeld('a', old, async () => void wrote.push('old'))).toBe(false);
    expect((await queue.counts()).running).toBe(1);
    expect(await queue.whileHeld('a', current?.lease ?? '', async () => void wrote.push('current'))).toBe(
      true,
    );
    expect(wrote).toEqual(['current']);
    expect(await queue.complete('a', current?.lease)).toBe(true);
    expect(await queue.hasUnfinished()).toBe(false);
  });

  it('extends the leases of many running jobs at once (an OR per job was too deep for SQLite)', async () => {
    const queue = open();
    const many = 2_500;
    await queue.enqueue(Array.from({ length: many }, (_, i) => job(`j${i}`)));
    const claimed = await queue.claim('w1', many, 30_000);
    expect(claimed.length).toBe(many);
    const leases = claimed.map((c) => ({ jobId: c.job.jobId, lease: c.lease }));
    expect(await queue.extend(leases, 60_000)).toBe(many);
  });
});
