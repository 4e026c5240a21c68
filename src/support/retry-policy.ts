import { MAX_TIMER_MS } from './timer-limit.js';

/** How long to wait between attempts of a handler. */
export interface BackoffOptions {
  /** `fixed` waits `delayMs` each time; `exponential` waits `delayMs * 2^(attempt-1)`. */
  type: 'fixed' | 'exponential';
  /** Base delay in milliseconds. */
  delayMs: number;
  /**
   * Share of each wait that is random, from 0 to 1, as BullMQ's `jitter`: a
   * wait `d` becomes a random wait between `d * (1 - jitter)` and `d`, so
   * handlers failing together do not all retry at the same moment.
   * @defaultValue `config.defaultBackoff.jitter` (`0.5`)
   */
  jitter?: number;
}

/**
 * The one retry policy of commitbus: handler retries (sync, async, ordered;
 * every transport), the after-commit publish, the event store's halted
 * events and subscriptions, the router's per-attempt floor and the stores'
 * retries in the ordered consumer all wait what {@link retryDelay} says.
 * A handler's {@link BackoffOptions} is one, with no cap and its own attempts.
 */
export interface RetryPolicy extends BackoffOptions {
  /**
   * No wait is longer than this; applied before the jitter.
   * @defaultValue no cap but Node's timer limit ({@link MAX_TIMER_MS})
   */
  maxDelayMs?: number;
  /**
   * Runs in all, the first included: {@link mayRetry} is false after the last.
   * @defaultValue no limit
   */
  attempts?: number;
}

// 2^40 times any delay of 1 ms or more is past the timer limit: a larger exponent changes nothing.
const MAX_EXPONENT = 40;

/**
 * The wait before retry number `retry` (1 = the first retry, after the first
 * run failed): `delayMs`, doubled per retry when `exponential`, capped at
 * `maxDelayMs` and at Node's timer limit (a longer timer would fire at once),
 * then jittered the way BullMQ's built-in strategies do it.
 * @param random - a number in [0, 1); for tests.
 */
export function retryDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(MAX_EXPONENT, Math.floor(retry) - 1));
  const raw = policy.type === 'fixed' ? policy.delayMs : policy.delayMs * 2 ** exponent;
  const delay = Math.min(raw, policy.maxDelayMs ?? MAX_TIMER_MS, MAX_TIMER_MS);
  const jitter = policy.jitter ?? 0;
  if (jitter <= 0) return delay;
  return Math.floor(random() * delay * jitter + delay * (1 - jitter));
}

/** Whether run number `attempt` (1 = the first) may be followed by another under `policy`. */
export function mayRetry(policy: RetryPolicy, attempt: number): boolean {
  return policy.attempts === undefined || attempt < policy.attempts;
}

/** What is wrong with a handler's backoff value, or `undefined` when it is valid. */
export function backoffProblem(backoff: unknown): string | undefined {
  if (typeof backoff !== 'object' || backoff === null) return 'it is not an object';
  const { type, delayMs, jitter } = backoff as Record<string, unknown>;
  if (type !== 'fixed' && type !== 'exponential') return `type must be 'fixed' or 'exponential'`;
  if (typeof delayMs !== 'number' || !Number.isInteger(delayMs) || delayMs < 0) {
    return 'delayMs must be an integer >= 0';
  }
  if (delayMs > MAX_TIMER_MS) {
    return `delayMs must be at most ${MAX_TIMER_MS} (the longest a Node timer waits)`;
  }
  if (jitter !== undefined && (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1))) {
    return 'jitter must be a number from 0 to 1';
  }
  return undefined;
}
