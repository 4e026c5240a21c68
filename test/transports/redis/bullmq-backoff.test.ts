/**
 * commitbus's BullMQ backoff strategy: the wait a failed run told, else the
 * handler's backoff at the attempt that failed, from the job's options.
 */
import type { MinimalJob } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { bullmqBackoff, commitbusBackoffStrategy } from '../../../src/transports/redis/bullmq-backoff.js';

const jobOf = (backoff: object, data: object = {}) => ({ opts: { backoff }, data }) as unknown as MinimalJob;

describe('commitbusBackoffStrategy', () => {
  const exponential = bullmqBackoff({ type: 'exponential', delayMs: 100, jitter: 0 });

  it('stores a handler backoff under a type only commitbus times', () => {
    expect(exponential).toEqual({ type: 'commitbus:exponential', delay: 100, jitter: 0 });
  });

  it('waits what the failed run told, once', () => {
    const decided = new WeakMap<object, number>();
    const strategy = commitbusBackoffStrategy(decided);
    const job = jobOf(exponential);
    decided.set(job, 1_234);
    expect(strategy(1, exponential.type, undefined, job)).toBe(1_234);
    // Told once: a later failure that told nothing (a store failed) falls back to the backoff.
    expect(strategy(3, exponential.type, undefined, job)).toBe(400);
  });

  it("falls back to the handler's backoff at the attempt that failed (a retry job starts at firstAttempt)", () => {
    const strategy = commitbusBackoffStrategy(new WeakMap());
    expect(strategy(1, exponential.type, undefined, jobOf(exponential))).toBe(100);
    // A sync chain's retry job whose first run is attempt 2: its first failure is attempt 2.
    expect(strategy(1, exponential.type, undefined, jobOf(exponential, { firstAttempt: 2 }))).toBe(200);
    const fixed = bullmqBackoff({ type: 'fixed', delayMs: 70 });
    expect(strategy(5, fixed.type, undefined, jobOf(fixed))).toBe(70);
  });

  it('refuses a backoff commitbus never sets with a coded error', () => {
    const strategy = commitbusBackoffStrategy(new WeakMap());
    expect(() => strategy(1, 'custom', undefined, jobOf({ type: 'custom' }))).toThrow(
      expect.objectContaining({ code: 'COMMITBUS_INTERNAL' }),
    );
  });
});
