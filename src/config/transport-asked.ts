import type { CommitbusOptions } from './commitbus-options.js';
import type { TransportName } from './transport-names.js';

/**
 * The transport `COMMITBUS_TRANSPORT` named when options were resolved by
 * `loadConfigFromEnv`, by the options' `redis` group, as `redis-given.ts`
 * keeps whether they named a Redis: a spread copy of the options carries the
 * very same group, so it says what the original said.
 */
const ASKED = new WeakMap<object, TransportName>();

/** Records on options just resolved that the environment asked for `name`. */
export function rememberTransportAsked(resolved: { readonly redis: object }, name: TransportName): void {
  ASKED.set(resolved.redis, name);
}

/**
 * The transport the environment asked for when `config` was resolved by
 * `loadConfigFromEnv` (`COMMITBUS_TRANSPORT`), `undefined` when it named
 * none or `config` was made otherwise. A bus given no adapter refuses options
 * that asked for one it would not open by itself (`sql`, `sqlite`).
 */
export function transportAsked(config: CommitbusOptions | undefined): TransportName | undefined {
  const group = (config as { redis?: unknown } | undefined)?.redis;
  return typeof group === 'object' && group !== null ? ASKED.get(group) : undefined;
}
