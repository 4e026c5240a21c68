/**
 * The `HandlerJobQueue` port's contract (src/handlers/handler-job-queue.ts),
 * run against every adapter in ./adapters.ts through the queue its transport
 * opens, with no worker running: jobs added in one call wait, counted by
 * state and by handler (a sync-chain retry, or a job past its first attempt,
 * counts as retrying), and the queue says it has unfinished work.
 */
import { describe, expect, it } from 'vitest';
import type { HandlerJob } from '../../src/handlers/handler-job.js';
import { adaptersFor } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-jobs');

/** A job of `handler`, id `id`. */
function job(handler: string, id: string, extra: Partial<HandlerJob> = {}): HandlerJob {
  return {
    kind: 'async',
    jobId: id,
    payload: JSON.stringify({ id }),
    handler,
    attempts: 3,
    backoff: { type: 'fixed', delayMs: 10 },
    delayMs: 0,
    ...extra,
  };
}

describe.each(adaptersFor('jobs'))('HandlerJobQueue on $name', (adapter) => {
  it('has nothing unfinished until jobs are added; counts them by state and by handler', async () => {
    const jobs = bed.open(adapter).transport.jobs;
    expect(await jobs.hasUnfinished()).toBe(false);
    expect(await jobs.counts()).toEqual({ waiting: 0, running: 0, retrying: 0, byHandler: {} });
    await jobs.enqueue([
      job('mail', 'e1.mail'),
      job('mail', 'e2.mail', { firstAttempt: 2 }),
      job('index', 'e1.retry.index', { kind: 'retry' }),
    ]);
    expect(await jobs.hasUnfinished()).toBe(true);
    expect(await jobs.counts()).toEqual({
      waiting: 1,
      running: 0,
      retrying: 2,
      byHandler: {
        mail: { waiting: 1, running: 0, retrying: 1 },
        index: { waiting: 0, running: 0, retrying: 1 },
      },
    });
  });
});
