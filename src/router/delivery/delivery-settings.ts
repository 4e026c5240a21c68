import { ConfigError } from '../../config/errors/config.error.js';
import { DEFAULT_DELIVERY_BACKOFF, type DeliveryBackoff } from './delivery-backoff.js';

/** What a {@link DeliveryWorker} tunes. */
export interface DeliverySettings {
  /**
   * Batches delivered at once by one worker.
   * @defaultValue 64
   */
  readonly concurrency: number;
  /**
   * Batches of one subscriber out at once across all workers (an ordered
   * subscriber: 1): enough for one busy subscriber to be fed at full speed,
   * few enough that a hanging one holds only a quarter of a worker's slots.
   * @defaultValue 16
   */
  readonly maxInFlightPerSubscriber: number;
  /**
   * A taken batch not acked or nacked within this is recovered by the upkeep (its
   * worker died). Longer than the sender's connect + request timeouts.
   * @defaultValue 30_000, or those timeouts + 8 s when that is more
   */
  readonly leaseMs: number;
  /**
   * Longest wait for work before looking again (retries come due without a wake-up).
   * @defaultValue 250
   */
  readonly idleWaitMs: number;
  /** The wait before a failed batch's next delivery. @defaultValue {@link DEFAULT_DELIVERY_BACKOFF} */
  readonly backoff: DeliveryBackoff;
  /**
   * A batch whose delivery failed this many times becomes a dead letter.
   * @defaultValue 25
   */
  readonly maxAttempts: number;
  /**
   * A batch still failing this long after it was made becomes a dead letter.
   * @defaultValue 259_200_000 (3 days)
   */
  readonly maxAgeMs: number;
}

/** The defaults of {@link DeliverySettings}. */
export const DEFAULT_DELIVERY_SETTINGS = {
  concurrency: 64,
  maxInFlightPerSubscriber: 16,
  leaseMs: 30_000,
  idleWaitMs: 250,
  backoff: DEFAULT_DELIVERY_BACKOFF,
  maxAttempts: 25,
  maxAgeMs: 3 * 24 * 3_600_000,
} as const satisfies DeliverySettings;

/** How much longer than the connect + request timeouts the default lease is. */
const LEASE_MARGIN_MS = 8_000;

/** Settings with the defaults filled in; throws a `ConfigError` saying what to fix. */
export function deliverySettings(
  given: Partial<Omit<DeliverySettings, 'backoff'>> & { readonly backoff?: Partial<DeliveryBackoff> } = {},
  timeoutsMs = 22_000,
): DeliverySettings {
  const settings: DeliverySettings = {
    ...DEFAULT_DELIVERY_SETTINGS,
    // Longer timeouts (Routemaster's ROUTEMASTER_TIMEOUT = 30, say) lengthen the default lease with them.
    leaseMs: Math.max(DEFAULT_DELIVERY_SETTINGS.leaseMs, timeoutsMs + LEASE_MARGIN_MS),
    ...given,
    backoff: { ...DEFAULT_DELIVERY_BACKOFF, ...given.backoff },
  };
  const positive = [
    'concurrency',
    'maxInFlightPerSubscriber',
    'leaseMs',
    'idleWaitMs',
    'maxAttempts',
    'maxAgeMs',
  ] as const;
  for (const key of positive) {
    const value = settings[key];
    if (!Number.isInteger(value) || value < 1)
      throw new ConfigError(`delivery ${key} must be an integer >= 1, got ${value}`);
  }
  for (const key of ['baseMs', 'floorMs', 'maxMs'] as const) {
    const value = settings.backoff[key];
    if (!Number.isInteger(value) || value < 0)
      throw new ConfigError(`delivery backoff.${key} must be an integer >= 0, got ${value}`);
  }
  if (settings.leaseMs <= timeoutsMs) {
    throw new ConfigError(
      `delivery leaseMs (${settings.leaseMs}) must be longer than the connect + request timeouts (${timeoutsMs} ms), or batches still being delivered would be recovered and sent twice: raise ROUTER_LEASE_MS or lower ROUTER_CONNECT_TIMEOUT_MS / ROUTER_REQUEST_TIMEOUT_MS (or Routemaster's ROUTEMASTER_CONNECT_TIMEOUT / ROUTEMASTER_TIMEOUT, in seconds)`,
    );
  }
  return settings;
}
