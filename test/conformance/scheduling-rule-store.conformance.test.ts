/**
 * The `SchedulingRuleStore` port's contract (src/scheduling/scheduling-rule-store.ts),
 * run against every adapter in ./adapters.ts through the store its transport
 * opens: a rule set once (its `since` kept), removed once, listed oldest
 * first; work parked per handler, counted, and held while its oldest item
 * may not go; runs dropped by a block counted per handler. (Releasing into
 * the job queue differs today: the memory store keeps work parked while no
 * worker of its bus runs, Redis enqueues it; not asserted here.) (What a bus does with the rules is
 * test/scheduling/rules-*.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { ParkedWork } from '../../src/scheduling/parked-work.js';
import { ADAPTERS } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-rules');

/** Work of `handler` parked at `parkedAt`, its job id `id`. */
function work(handler: string, id: string, parkedAt: number): ParkedWork {
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
    handlingKey: 'RECORD.CREATE',
    parkedAt,
  };
}

describe.each(ADAPTERS)('SchedulingRuleStore on $name', (adapter) => {
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
