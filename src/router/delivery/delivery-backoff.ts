import { retryDelay } from '../../support/retry-policy.js';

/** How long a failed batch waits before its next delivery. */
export interface DeliveryBackoff {
  /**
   * Routemaster's base: a subscriber with `hp` health points waits
   * `round(baseMs * 2^-hp)`, so a subscriber failing for long waits up to `baseMs`.
   * @defaultValue 60_000
   */
  readonly baseMs: number;
  /**
   * A floor doubling per attempt of the batch: `floorMs * 2^(attempts-1)`.
   * At full health Routemaster's wait is ~0, so without it a new failing
   * subscriber would use up `maxAttempts` in a second.
   * @defaultValue 1_000
   */
  readonly floorMs: number;
  /**
   * No wait is longer than this (before the jitter).
   * @defaultValue 3_600_000
   */
  readonly maxMs: number;
}

/** The defaults of {@link DeliveryBackoff}. */
export const DEFAULT_DELIVERY_BACKOFF = {
  baseMs: 60_000,
  floorMs: 1_000,
  maxMs: 3_600_000,
} as const satisfies DeliveryBackoff;

/**
 * The wait after a batch's `attempts`-th failed delivery (1 = the first) for
 * a subscriber left with `health` points: the larger of Routemaster's
 * health-point wait and the per-attempt floor, capped at `maxMs`, times a
 * random 1x..1.5x so failing batches do not all come back at once.
 */
export function deliveryRetryDelay(
  backoff: DeliveryBackoff,
  health: number,
  attempts: number,
  random: () => number = Math.random,
): number {
  const hp = Math.max(0, Math.min(100, health));
  const byHealth = Math.round(backoff.baseMs * 2 ** -hp);
  // The floor is commitbus's one retry policy; only the health part is Routemaster's.
  const byAttempt = retryDelay(
    { type: 'exponential', delayMs: backoff.floorMs, maxDelayMs: backoff.maxMs },
    attempts,
  );
  const delay = Math.min(backoff.maxMs, Math.max(byHealth, byAttempt));
  return Math.round(delay * (1 + random() * 0.5));
}
