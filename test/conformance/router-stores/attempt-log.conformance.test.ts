/**
 * The router's delivery attempt log (`RouterStores.attempts`) on every
 * adapter that provides the router's stores: newest first, bounded to
 * `ATTEMPT_LOG_SIZE` per subscriber however many attempts come, one log per
 * subscriber, and an empty one for a subscriber never delivered to.
 */
import { expect, it } from 'vitest';
import {
  ATTEMPT_LOG_SIZE,
  type DeliveryAttempt,
  successRate,
} from '../../../src/router/delivery-attempt-log.js';
import { describeOnEachStores, T } from '../../helpers/router-stores.js';

function attempt(n: number, ok: boolean): DeliveryAttempt {
  return {
    at: T + n,
    batch: `b${n}`,
    events: 3,
    ok,
    status: ok ? 200 : n % 2 === 0 ? 503 : null,
    error: ok ? null : n % 2 === 0 ? 'HTTP 503' : 'ECONNREFUSED',
    durationMs: n,
  };
}

describeOnEachStores('router-attempt-log', 'the delivery attempt log ($name)', (open) => {
  it('keeps the newest attempts per subscriber, newest first, bounded', async () => {
    const s = open();
    expect(await s.attempts.recent('billing')).toEqual([]);
    for (let n = 0; n < ATTEMPT_LOG_SIZE + 20; n++)
      await s.attempts.record('billing', attempt(n, n % 4 !== 0));
    await s.attempts.record('emails', attempt(7, false));
    const recent = await s.attempts.recent('billing');
    expect(recent.length).toBe(ATTEMPT_LOG_SIZE);
    expect(recent[0]).toEqual(attempt(ATTEMPT_LOG_SIZE + 19, true));
    expect(recent.at(-1)).toEqual(attempt(20, false));
    expect(recent.map((a) => a.at)).toEqual([...recent.map((a) => a.at)].sort((a, b) => b - a));
    expect((await s.attempts.recent('billing', 5)).map((a) => a.batch)).toEqual(
      [119, 118, 117, 116, 115].map((n) => `b${n}`),
    );
    expect(await s.attempts.recent('emails')).toEqual([attempt(7, false)]);
    expect(successRate(recent)).toBe(0.75);
    expect(successRate([])).toBeNull();
  });
});
