/**
 * The `SchedulingRuleStore` port's contract (src/scheduling/scheduling-rule-store.ts),
 * run against every adapter in ./adapters.ts through the store its transport
 * opens, with no worker running: a rule set once (its `since` kept), removed
 * once, listed oldest first and by id within a millisecond; work parked per
 * handler, counted, and held while its oldest item may not go; released work
 * enqueued into the transport's job queue though no worker runs, oldest first
 * up to the first item held, once even when two releases race; runs dropped
 * by a block counted per handler. (That a worker started later runs released
 * work, and what a bus does with the rules, is test/scheduling/.)
 */
import { describe, expect, it } from 'vitest';
import type { HandlerJobQueue } from '../../src/handlers/handler-job-queue.js';
import type { ParkedWork } from '../../src/scheduling/parked-work.js';
import { adaptersFor } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-rules');

/** Work of `handler` parked at `parkedAt`, its job id `id`, for an event with key `handlingKey`. */
function work(handler: string, id: string, parkedAt: number, handlingKey = 'RECORD.CREATE'): ParkedWork {
  return {
    job: {
      kind: 'async',
      jobId: id,
      payload: JSON.stringify({ id }),
      handler,
      attempts: 1,
      backoff: { type: 'fixed', delayMs: 10 },
      delayMs: 0,
    },
    handlingKey,
    parkedAt,
  };
}

/** The handler jobs waiting in `jobs`, per handler (what a worker started now would run). */
async function waiting(jobs: HandlerJobQueue): Promise<Record<string, number>> {
  const { byHandler } = await jobs.counts();
  return Object.fromEntries(Object.entries(byHandler).map(([handler, n]) => [handler, n.waiting]));
}

describe.each(adaptersFor('rules'))('SchedulingRuleStore on $name', (adapter) => {
  it('sets a rule once and keeps its since, lists rules oldest first, removes each once', async () => {
    const rules = bed.open(adapter).transport.rules;
    expect(await rules.listRules()).toEqual([]);
    expect(await rules.setRule('pause', { handler: 'mail' }, new Date(2_000))).toBe(true);
    expect(await rules.setRule('block', { handlingKey: 'RECORD' }, new Date(3_000))).toBe(true);
    expect(await rules.setRule('pause', { handler: 'mail' }, new Date(9_000))).toBe(false);
    expect(await rules.listRules()).toEqual([
      { kind: 'pause', target: { handler: 'mail' }, since: new Date(2_000) },
      { kind: 'block', target: { handlingKey: 'RECORD' }, since: new Date(3_000) },
    ]);
    expect(await rules.removeRule('pause', { handler: 'mail' })).toBe(true);
    expect(await rules.removeRule('pause', { handler: 'mail' })).toBe(false);
    expect(await rules.removeRule('pause', { handlingKey: 'RECORD' })).toBe(false);
    expect((await rules.listRules()).map((r) => r.kind)).toEqual(['block']);
  });

  it('parks work per handler, counts it, and releases none while the oldest may not go', async () => {
    const { rules, jobs } = bed.open(adapter).transport;
    for (const [i, handler] of ['mail', 'mail', 'index', 'mail'].entries()) {
      await rules.park(work(handler, `e${i}.${handler}.parked`, 1_000 + i));
    }
    expect((await rules.parkedHandlers()).sort()).toEqual(['index', 'mail']);
    expect([
      await rules.parkedCount('mail'),
      await rules.parkedCount('index'),
      await rules.parkedCount(),
    ]).toEqual([3, 1, 4]);
    expect(await jobs.hasUnfinished()).toBe(false);
    // Nothing may go: nothing is released, nothing enqueued.
    const seen: string[] = [];
    expect(await rules.unpark('mail', (w) => seen.push(w.job.jobId) < 0)).toBe(0);
    expect(seen).toEqual(['e0.mail.parked']);
    expect(await rules.parkedCount()).toBe(4);
    expect(await jobs.hasUnfinished()).toBe(false);
  });

  it('lists rules set in the same millisecond by id: block before pause, handler before key, then by name', async () => {
    const rules = bed.open(adapter).transport.rules;
    const at = new Date(5_000);
    await rules.setRule('pause', { handlingKey: 'RECORD' }, at);
    await rules.setRule('pause', { handler: 'mail' }, at);
    await rules.setRule('block', { handlingKey: 'RECORD' }, at);
    await rules.setRule('block', { handler: 'mail' }, at);
    await rules.setRule('pause', { handler: 'index' }, at);
    await rules.setRule('pause', { handler: 'late' }, new Date(6_000));
    await rules.setRule('block', { handler: 'early' }, new Date(1_000));
    expect((await rules.listRules()).map((r) => [r.kind, r.target, r.since.getTime()])).toEqual([
      ['block', { handler: 'early' }, 1_000],
      ['block', { handler: 'mail' }, 5_000],
      ['block', { handlingKey: 'RECORD' }, 5_000],
      ['pause', { handler: 'index' }, 5_000],
      ['pause', { handler: 'mail' }, 5_000],
      ['pause', { handlingKey: 'RECORD' }, 5_000],
      ['pause', { handler: 'late' }, 6_000],
    ]);
  });

  it('releases into the job queue though no worker runs: oldest first, up to the first item held', async () => {
    const { rules, jobs } = bed.open(adapter).transport;
    await rules.park(work('mail', 'e0.mail.parked', 1_000));
    await rules.park(work('mail', 'e1.mail.parked', 1_001));
    await rules.park(work('mail', 'e2.mail.parked', 1_002, 'RECORD.PUBLISH'));
    await rules.park(work('mail', 'e3.mail.parked', 1_003));
    await rules.park(work('index', 'e0.index.parked', 1_000));

    const seen: string[] = [];
    const released = await rules.unpark('mail', (w) => {
      seen.push(w.job.jobId);
      return w.handlingKey === 'RECORD.CREATE';
    });
    expect(released).toBe(2);
    expect(seen).toEqual(['e0.mail.parked', 'e1.mail.parked', 'e2.mail.parked']);
    expect([await rules.parkedCount('mail'), await rules.parkedCount()]).toEqual([2, 3]);
    expect(await waiting(jobs)).toEqual({ mail: 2 });

    // What is left goes oldest first; a handler whose list is emptied is no longer listed.
    const rest: string[] = [];
    expect(await rules.unpark('mail', (w) => rest.push(w.job.jobId) > 0)).toBe(2);
    expect(rest).toEqual(['e2.mail.parked', 'e3.mail.parked']);
    expect(await rules.parkedHandlers()).toEqual(['index']);
    expect(await rules.unpark('index', () => true)).toBe(1);
    expect(await rules.parkedHandlers()).toEqual([]);
    expect([await rules.parkedCount('mail'), await rules.parkedCount()]).toEqual([0, 0]);
    expect(await waiting(jobs)).toEqual({ mail: 4, index: 1 });
    // Nothing left: a release finds nothing and asks nothing.
    expect(await rules.unpark('mail', () => expect.unreachable())).toBe(0);
    expect(await jobs.hasUnfinished()).toBe(true);
  });

  it('two releases of one handler at once enqueue each item once between them', async () => {
    const { rules, jobs } = bed.open(adapter).transport;
    for (let i = 0; i < 5; i++) await rules.park(work('mail', `e${i}.mail.parked`, 1_000 + i));

    const released = await Promise.all([rules.unpark('mail', () => true), rules.unpark('mail', () => true)]);
    expect(released[0] + released[1]).toBe(5);
    expect(await rules.parkedCount()).toBe(0);
    expect(await rules.parkedHandlers()).toEqual([]);
    expect(await jobs.counts()).toMatchObject({ waiting: 5, byHandler: { mail: { waiting: 5 } } });
  });

  it('counts the runs a block dropped, per handler and in all', async () => {
    const rules = bed.open(adapter).transport.rules;
    expect(await rules.droppedCount()).toBe(0);
    await rules.countDropped('mail');
    await rules.countDropped('mail');
    await rules.countDropped('index');
    expect([await rules.droppedCount('mail'), await rules.droppedCount('index')]).toEqual([2, 1]);
    expect(await rules.droppedCount('other')).toBe(0);
    expect(await rules.droppedCount()).toBe(3);
  });
});
