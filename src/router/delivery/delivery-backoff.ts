import { DEFAULTS } from '../../config/config.js';
import type { DeliveryBackoff } from '../../config/router-option-groups.js';
import { retryDelay } from '../../support/retry-policy.js';

export type { DeliveryBackoff } from '../../config/router-option-groups.js';

/** The defaults of {@link DeliveryBackoff}: `DEFAULTS.router.delivery.backoff`. */
export const DEFAULT_DELIVERY_BACKOFF = DEFAULTS.router.delivery.backoff;

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
