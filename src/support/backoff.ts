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
 * The wait before retry number `attempt` (1 = the first retry), jittered the
 * way BullMQ's built-in strategies do it.
 */
export function backoffDelay(backoff: BackoffOptions, attempt: number): number {
  // An exponential delay past Node's timer limit would fire at once: hold it at the limit.
  const delay = Math.min(
    MAX_TIMER_MS,
    backoff.type === 'fixed' ? backoff.delayMs : Math.round(backoff.delayMs * 2 ** (attempt - 1)),
  );
  const jitter = backoff.jitter ?? 0;
  if (jitter <= 0) return delay;
  return Math.floor(Math.random() * delay * jitter + delay * (1 - jitter));
}

/** What is wrong with a backoff value, or `undefined` when it is valid. */
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
