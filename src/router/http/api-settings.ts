import { ConfigError } from '../../config/errors/config.error.js';
/** A key and certificate in PEM, to serve HTTPS. */
export interface TlsMaterial {
  /** The private key (PEM). */
  readonly key: string | Buffer;
  /** The certificate chain (PEM). */
  readonly cert: string | Buffer;
}

/** How the router's HTTP API behaves. */
export interface ApiSettings {
  /**
   * The root key (Routemaster's `ROUTEMASTER_ROOT_KEY`): the Basic username
   * that manages `/api_tokens`. Required; never logged nor echoed.
   */
  readonly rootKey: string;
  /**
   * Accept `http:` entity and callback URLs as well as `https:` (development only).
   * @defaultValue false
   */
  readonly allowHttpUrls?: boolean;
  /**
   * The largest `data` of a published event, in bytes of {@link ApiSettings.dataLimitEncoding}.
   * Routemaster's limit is 64 bytes of MessagePack.
   * @defaultValue 65_536
   */
  readonly maxDataBytes?: number;
  /**
   * How `data` is measured against {@link ApiSettings.maxDataBytes}: as JSON text, or as
   * MessagePack packed as Ruby's msgpack packs it, smallest headers first (Routemaster's way).
   * @defaultValue 'json'
   */
  readonly dataLimitEncoding?: 'json' | 'msgpack';
  /**
   * Serve HTTPS with this key and certificate; plain HTTP without (development, or behind a TLS proxy).
   * @defaultValue undefined
   */
  readonly tls?: TlsMaterial;
  /**
   * The largest request body, in bytes; a larger one gets 413.
   * @defaultValue 1_048_576
   */
  readonly bodyLimit?: number;
  /**
   * How long a client token looked up in the store is trusted without asking
   * again, for ingest throughput. A token deleted through another router
   * process may keep working here for up to this long (a deletion through this
   * one takes effect at once). 0 turns the cache off.
   * @defaultValue 5_000
   */
  readonly tokenCacheMs?: number;
  /**
   * Require the root key for `GET /metrics` (otherwise it is open, for a scraper on a private network).
   * @defaultValue false
   */
  readonly metricsNeedRootKey?: boolean;
  /**
   * `GET /pulse/scaling` counts the batches due within this many ms
   * (Routemaster's `ROUTEMASTER_SCALING_DEADLINE`).
   * @defaultValue 1_000
   */
  readonly scalingDeadlineMs?: number;
  /**
   * `GET /pulse/scaling` advises scaling up (answers after a second, with
   * `scale_up: true`) from this many due batches on (Routemaster's
   * `ROUTEMASTER_SCALING_THRESHOLD`).
   * @defaultValue 100
   */
  readonly scalingThreshold?: number;
  /**
   * The realm named in `WWW-Authenticate` on a 401.
   * @defaultValue 'commitbus'
   */
  readonly realm?: string;
}

/** {@link ApiSettings} with every default applied. */
export type ResolvedApiSettings = Required<Omit<ApiSettings, 'tls'>> & Pick<ApiSettings, 'tls'>;

/** The defaults of {@link ApiSettings}. */
export const API_DEFAULTS = {
  allowHttpUrls: false,
  maxDataBytes: 65_536,
  dataLimitEncoding: 'json',
  bodyLimit: 1_048_576,
  tokenCacheMs: 5_000,
  metricsNeedRootKey: false,
  scalingDeadlineMs: 1_000,
  scalingThreshold: 100,
  realm: 'commitbus',
} as const satisfies Omit<ResolvedApiSettings, 'rootKey' | 'tls'>;

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
