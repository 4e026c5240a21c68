import { DEFAULTS } from '../../config/config.js';
import { ConfigError } from '../../config/errors/config.error.js';
import type { DeliveryBackoff, DeliverySettings } from '../../config/router-option-groups.js';
import { DEFAULT_DELIVERY_BACKOFF } from './delivery-backoff.js';

export type { DeliverySettings } from '../../config/router-option-groups.js';

/** The defaults of {@link DeliverySettings}: `DEFAULTS.router.delivery`. */
export const DEFAULT_DELIVERY_SETTINGS = DEFAULTS.router.delivery;

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
