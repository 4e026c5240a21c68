import type { CommitbusOptions, TransportKind } from './commitbus-options.js';
import type { CommitbusConfig } from './config.js';
import { normalizeOptions } from './normalize-options.js';

/**
 * What an input named of where data lives, as opposed to what defaults
 * filled in: a resolved configuration always has a `transport`, and the
 * router must still tell `transport: 'memory'` asked for from none given.
 */
export interface TransportGiven {
  /** The transport named, or `undefined` when the default would apply. */
  readonly transport: TransportKind | undefined;
  /** Whether a Redis (`redis.url` or `redis.cluster`) was named. */
  readonly redis: boolean;
}

/** What each configuration `resolveOptions`, `resolveConfig` or `loadConfigFromEnv` made was given. */
const GIVEN = new WeakMap<object, TransportGiven>();

/** Records, on a configuration just resolved from `input`, what `input` named. */
export function rememberTransportGiven(resolved: object, input: unknown): void {
  GIVEN.set(resolved, transportGiven(input as CommitbusOptions | CommitbusConfig | undefined));
}

/**
 * What `input` named: read from the record a resolved configuration carries,
 * else from the options themselves. Throws a `ConfigError` as
 * `resolveOptions` does for options it would refuse (an option given twice).
 */
export function transportGiven(input: CommitbusOptions | CommitbusConfig | undefined): TransportGiven {
  if (typeof input === 'object' && input !== null) {
    const known = GIVEN.get(input);
    if (known !== undefined) return known;
  }
  const { given } = normalizeOptions(input);
  const redis = given.redis as { url?: unknown; cluster?: unknown } | undefined;
  return {
    transport: given.transport as TransportKind | undefined,
    redis: redis?.url !== undefined || redis?.cluster !== undefined,
  };
}
