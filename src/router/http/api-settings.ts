import { DEFAULTS } from '../../config/config.js';
import { ConfigError } from '../../config/errors/config.error.js';
import type { RouterApiTuning } from '../../config/router-option-groups.js';

export type { RouterApiTuning } from '../../config/router-option-groups.js';

/** A key and certificate in PEM, to serve HTTPS. */
export interface TlsMaterial {
  /** The private key (PEM). */
  readonly key: string | Buffer;
  /** The certificate chain (PEM). */
  readonly cert: string | Buffer;
}

/** How the router's HTTP API behaves: the root key and TLS, and the settings with defaults ({@link RouterApiTuning}). */
export interface ApiSettings extends RouterApiTuning {
  /**
   * The root key (Routemaster's `ROUTEMASTER_ROOT_KEY`): the Basic username
   * that manages `/api_tokens`. Required; never logged nor echoed.
   */
  readonly rootKey: string;
  /**
   * Serve HTTPS with this key and certificate; plain HTTP without (development, or behind a TLS proxy).
   * @defaultValue undefined
   */
  readonly tls?: TlsMaterial;
}

/** {@link ApiSettings} with every default applied. */
export type ResolvedApiSettings = Required<Omit<ApiSettings, 'tls'>> & Pick<ApiSettings, 'tls'>;

/** The defaults of {@link ApiSettings}: `DEFAULTS.router.api`. */
export const API_DEFAULTS = DEFAULTS.router.api;

/** Applies the defaults and checks the settings; throws a clear error on a bad one (never quoting the root key). */
export function resolveApiSettings(settings: ApiSettings): ResolvedApiSettings {
  if (typeof settings.rootKey !== 'string' || settings.rootKey.trim() === '') {
    throw new ConfigError('ApiSettings.rootKey is required: set the root key that manages API tokens');
  }
  const resolved: ResolvedApiSettings = {
    ...API_DEFAULTS,
    ...withoutUndefined(settings),
    rootKey: settings.rootKey,
  };
  positiveInteger('maxDataBytes', resolved.maxDataBytes);
  positiveInteger('bodyLimit', resolved.bodyLimit);
  positiveInteger('scalingThreshold', resolved.scalingThreshold, 'batches');
  if (!Number.isSafeInteger(resolved.scalingDeadlineMs) || resolved.scalingDeadlineMs < 0) {
    throw new ConfigError(
      `ApiSettings.scalingDeadlineMs must be an integer >= 0 (ms), got ${resolved.scalingDeadlineMs}`,
    );
  }
  if (!Number.isInteger(resolved.tokenCacheMs) || resolved.tokenCacheMs < 0) {
    throw new ConfigError(
      `ApiSettings.tokenCacheMs must be an integer >= 0 (ms), got ${resolved.tokenCacheMs}`,
    );
  }
  if (resolved.dataLimitEncoding !== 'json' && resolved.dataLimitEncoding !== 'msgpack') {
    throw new ConfigError(
      `ApiSettings.dataLimitEncoding must be 'json' or 'msgpack', got ${String(resolved.dataLimitEncoding)}`,
    );
  }
  return resolved;
}

function positiveInteger(name: string, value: number, unit = 'bytes'): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`ApiSettings.${name} must be a positive integer (${unit}), got ${value}`);
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
