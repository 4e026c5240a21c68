/**
 * The one retry policy (exact waits, jitter, cap, Node's timer limit,
 * attempts) and the rate-limited failure log every retrying loop shares.
 */
import { describe, expect, it } from 'vitest';
import { FailureLog } from '../../src/support/failure-log.js';
import type { Logger } from '../../src/support/logger.js';
import { mayRetry, type RetryPolicy, retryDelay } from '../../src/support/retry-policy.js';
import { MAX_TIMER_MS } from '../../src/support/timer-limit.js';

const samples = (policy: RetryPolicy, retry: number) =>
  Array.from({ length: 500 }, () => retryDelay(policy, retry));

describe('retryDelay', () => {
  it('waits delayMs, doubled per retry when exponential, exactly without jitter', () => {
    const exponential = { type: 'exponential', delayMs: 100 } as const;
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(exponential, n))).toEqual([100, 200, 400, 800, 1_600]);
    expect([1, 2, 9].map((n) => retryDelay({ type: 'fixed', delayMs: 70, jitter: 0 }, n))).toEqual([
      70, 70, 70,
    ]);
    // A retry number below 1 is the first retry.
    expect(retryDelay(exponential, 0)).toBe(100);
    expect(retryDelay({ type: 'exponential', delayMs: 0 }, 5_000)).toBe(0);
  });

  it('waits between d * (1 - jitter) and d, spread over that range, as BullMQ does', () => {
    const fixed = samples({ type: 'fixed', delayMs: 1_000, jitter: 0.5 }, 3);
    expect(Math.min(...fixed)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...fixed)).toBeLessThanOrEqual(1_000);
    expect(new Set(fixed).size).toBeGreaterThan(100);
    // Exponential: d = 100 * 2^(3-1) = 400 before the third retry.
    const exponential = samples({ type: 'exponential', delayMs: 100, jitter: 0.25 }, 3);
    expect(Math.min(...exponential)).toBeGreaterThanOrEqual(300);
    expect(Math.max(...exponential)).toBeLessThanOrEqual(400);
    expect(Math.max(...exponential) - Math.min(...exponential)).toBeGreaterThan(50);
    // The ends of the range, from the random number's.
    const policy = { type: 'fixed', delayMs: 1_000, jitter: 0.5 } as const;
    expect(retryDelay(policy, 1, () => 0)).toBe(500);
    expect(retryDelay(policy, 1, () => 0.999_999)).toBe(999);
    expect(retryDelay({ ...policy, jitter: 1 }, 1, () => 0)).toBe(0);
  });

  it('caps the wait at maxDelayMs before the jitter', () => {
    const capped = { type: 'exponential', delayMs: 1_000, maxDelayMs: 5_000 } as const;
    expect([1, 2, 3, 4, 10].map((n) => retryDelay(capped, n))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    // Jitter takes its share of the capped wait: 2_500..5_000, never above the cap.
    const jittered = samples({ ...capped, jitter: 0.5 }, 10);
    expect(Math.min(...jittered)).toBeGreaterThanOrEqual(2_500);
    expect(Math.max(...jittered)).toBeLessThanOrEqual(5_000);
    expect(retryDelay({ ...capped, jitter: 0.5 }, 10, () => 0)).toBe(2_500);
  });

  it("never passes Node's timer limit, however many retries an exponential policy has made", () => {
    expect(retryDelay({ type: 'exponential', delayMs: 1_000 }, 40)).toBe(MAX_TIMER_MS);
    expect(retryDelay({ type: 'exponential', delayMs: 1 }, 1e9)).toBe(MAX_TIMER_MS);
    expect(retryDelay({ type: 'exponential', delayMs: 1_000, maxDelayMs: MAX_TIMER_MS * 2 }, 60)).toBe(
      MAX_TIMER_MS,
    );
    const jittered = samples({ type: 'exponential', delayMs: 1_000, jitter: 0.1 }, 50);
    expect(jittered.every((d) => Number.isInteger(d) && d <= MAX_TIMER_MS)).toBe(true);
  });
});

describe('mayRetry', () => {
  it('allows a retry after every run but the last of `attempts`, and always without attempts', () => {
    const policy = { type: 'fixed', delayMs: 10, attempts: 3 } as const;
    expect([1, 2, 3, 4].map((n) => mayRetry(policy, n))).toEqual([true, true, false, false]);
    expect(mayRetry({ type: 'fixed', delayMs: 10, attempts: 1 }, 1)).toBe(false);
    expect(mayRetry({ type: 'fixed', delayMs: 10 }, 1_000)).toBe(true);
  });
});

/** A logger that keeps its lines. */
function recording() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const logger: Logger = {
    info: (fields, message) => lines.push({ level: 'info', fields: { ...fields }, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields: { ...fields }, message }),
    error: (fields, message) => lines.push({ level: 'error', fields: { ...fields }, message }),
  };
  return { lines, logger };
}

describe('FailureLog', () => {
  it('warns of the first failure of a run, then of one in 30, counting the run', () => {
    const { lines, logger } = recording();
    const log = new FailureLog(logger);
    for (let i = 0; i < 61; i++) log.failed({ worker: 'w' }, 'could not take work');
    expect(log.inARow).toBe(61);
    expect(lines.map((l) => [l.level, l.fields.failuresInARow, l.fields.worker])).toEqual([
      ['warn', 1, 'w'],
      ['warn', 31, 'w'],
      ['warn', 61, 'w'],
    ]);
  });

  it('starts a new run after a success, saying it recovered only when asked to and only after failures', () => {
    const { lines, logger } = recording();
    const log = new FailureLog(logger, 3);
    const recovered = { fields: { task: 't' }, message: 't recovered' };
    log.succeeded(recovered);
    expect(lines).toEqual([]);
    for (let i = 0; i < 4; i++) log.failed({}, 'failed');
    log.succeeded(recovered);
    expect(log.inARow).toBe(0);
    log.failed({}, 'failed');
    log.succeeded();
    expect(lines.map((l) => `${l.level} ${l.message} ${l.fields.failuresInARow ?? ''}`)).toEqual([
      'warn failed 1',
      'warn failed 4',
      'info t recovered ',
      'warn failed 1',
    ]);
  });
});
