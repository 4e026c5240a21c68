import { readFileSync } from 'node:fs';
import { parseEnvBoolean, parseEnvInteger } from '../config/env-values.js';
import { ConfigError } from '../config/errors/config.error.js';
import { parseClientTokens } from './client-token-import.js';
import { withRoutemasterEnv } from './routemaster-env.js';
import { isRouterRole, ROUTER_ROLES, type RouterOptions, type RouterRole } from './router-options.js';

/**
 * Environment variables the router reads, beside the bus's own (`REDIS_URL`,
 * `REDIS_CLUSTER_NODES`, `COMMITBUS_PREFIX`, `COMMITBUS_NAME`). Routemaster's
 * names are read too where it has one, so a Routemaster deployment's
 * environment keeps working.
 */
export const ROUTER_ENV_VARS = {
  roles: 'ROUTER_ROLES',
  host: 'ROUTER_HOST',
  port: 'ROUTER_PORT',
  rootKey: 'ROUTER_ROOT_KEY',
  tlsKeyFile: 'ROUTER_TLS_KEY_FILE',
  tlsCertFile: 'ROUTER_TLS_CERT_FILE',
  allowHttpUrls: 'ROUTER_ALLOW_HTTP_URLS',
  maxDataBytes: 'ROUTER_MAX_DATA_BYTES',
  dataLimitEncoding: 'ROUTER_DATA_LIMIT_ENCODING',
  tokenCacheMs: 'ROUTER_TOKEN_CACHE_MS',
  scalingThreshold: 'ROUTER_SCALING_THRESHOLD',
  scalingDeadlineMs: 'ROUTER_SCALING_DEADLINE_MS',
  verifyTls: 'ROUTER_SSL_VERIFY',
  caFile: 'ROUTER_CA_FILE',
  connectTimeoutMs: 'ROUTER_CONNECT_TIMEOUT_MS',
  requestTimeoutMs: 'ROUTER_REQUEST_TIMEOUT_MS',
  concurrency: 'ROUTER_CONCURRENCY',
  maxInFlightPerSubscriber: 'ROUTER_MAX_IN_FLIGHT_PER_SUBSCRIBER',
  leaseMs: 'ROUTER_LEASE_MS',
  maxAttempts: 'ROUTER_MAX_ATTEMPTS',
  maxAgeMs: 'ROUTER_MAX_AGE_MS',
  backoffBaseMs: 'ROUTER_BACKOFF_BASE_MS',
  autodropHighBytes: 'ROUTER_AUTODROP_HIGH_BYTES',
  autodropLowBytes: 'ROUTER_AUTODROP_LOW_BYTES',
  clients: 'ROUTER_CLIENTS',
} as const;

/** Routemaster's names for the same settings, read when ours are not set. */
const ROUTEMASTER_ALIASES: Partial<Record<keyof typeof ROUTER_ENV_VARS, string>> = {
  rootKey: 'ROUTEMASTER_ROOT_KEY',
  verifyTls: 'ROUTEMASTER_SSL_VERIFY',
  clients: 'ROUTEMASTER_CLIENTS',
  scalingThreshold: 'ROUTEMASTER_SCALING_THRESHOLD',
  scalingDeadlineMs: 'ROUTEMASTER_SCALING_DEADLINE',
};

/** How Routemaster reads a boolean (`ROUTEMASTER_SSL_VERIFY`): these are true, anything else false. */
const ROUTEMASTER_TRUE = /^(true|on|yes|1)$/i;

/**
 * Reads {@link ROUTER_ENV_VARS} on top of `overrides` (and of Routemaster's
 * variables, below). A wrong value throws a `ConfigError` naming the
 * variable and the value; the root key and client tokens are never echoed. Booleans: our `ROUTER_*` variables take true/false, yes/no, on/off
 * or 1/0 in any case and throw on anything else (a typo must not turn TLS
 * verification off unnoticed); Routemaster's names are read as Routemaster
 * reads them, `/^(true|on|yes|1)$/i` true and anything else false, never
 * throwing, so a Routemaster environment means what it meant there.
 * Routemaster's other settings (`ROUTEMASTER_MAX_EVENT_DATA`, its timeouts in
 * seconds, `ROUTEMASTER_REDIS_MAX_MEM` and `_MIN_FREE`, `MAX_BACKOFF_MS`) set
 * the knobs ours leave unset, in Routemaster's meaning; `ROUTER_CLIENTS`
 * (or `ROUTEMASTER_CLIENTS`) lists tokens to create at start (`clients`).
 */
export function loadRouterOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: RouterOptions = {},
): RouterOptions {
  const base = withRoutemasterEnv(overrides, env, (name) => (env[name]?.trim() ?? '') !== '');
  const read = (key: keyof typeof ROUTER_ENV_VARS): { name: string; raw: string } | undefined => {
    for (const name of [ROUTER_ENV_VARS[key], ROUTEMASTER_ALIASES[key]]) {
      const raw = name === undefined ? undefined : env[name]?.trim();
      if (name !== undefined && raw !== undefined && raw !== '') return { name, raw };
    }
    return undefined;
  };
  const int = (key: keyof typeof ROUTER_ENV_VARS): number | undefined => {
    const found = read(key);
    if (found === undefined) return undefined;
    return parseEnvInteger(found.name, found.raw);
  };
  const bool = (key: keyof typeof ROUTER_ENV_VARS): boolean | undefined => {
    const found = read(key);
    if (found === undefined) return undefined;
    // Routemaster's own rule for its names, so its deployments read the same.
    if (found.name === ROUTEMASTER_ALIASES[key]) return ROUTEMASTER_TRUE.test(found.raw);
    return parseEnvBoolean(found.name, found.raw);
  };
  const file = (key: keyof typeof ROUTER_ENV_VARS): string | undefined => {
    const found = read(key);
    if (found === undefined) return undefined;
    try {
      return readFileSync(found.raw, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `${found.name}: cannot read ${JSON.stringify(found.raw)} (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
  };

  const clientsRaw = read('clients');
  const clients = clientsRaw === undefined ? undefined : parseClientTokens(clientsRaw.raw, clientsRaw.name);
  const rolesRaw = read('roles');
  const roles = rolesRaw === undefined ? undefined : parseRoles(rolesRaw.raw, rolesRaw.name);
  const encoding = read('dataLimitEncoding');
  if (encoding !== undefined && encoding.raw !== 'json' && encoding.raw !== 'msgpack') {
    throw new ConfigError(
      `${encoding.name} must be "json" or "msgpack", got ${JSON.stringify(encoding.raw)}`,
    );
  }
  const key = file('tlsKeyFile');
  const cert = file('tlsCertFile');
  if ((key === undefined) !== (cert === undefined)) {
    throw new ConfigError(
      `set both ${ROUTER_ENV_VARS.tlsKeyFile} and ${ROUTER_ENV_VARS.tlsCertFile} to serve HTTPS, or neither for plain HTTP`,
    );
  }

  return {
    ...base,
    ...defined({ roles, host: read('host')?.raw, port: int('port'), clients }),
    api: {
      ...base.api,
      ...defined({
        rootKey: read('rootKey')?.raw,
        allowHttpUrls: bool('allowHttpUrls'),
        maxDataBytes: int('maxDataBytes'),
        dataLimitEncoding: encoding?.raw as 'json' | 'msgpack' | undefined,
        tokenCacheMs: int('tokenCacheMs'),
        scalingThreshold: int('scalingThreshold'),
        scalingDeadlineMs: int('scalingDeadlineMs'),
        tls: key !== undefined && cert !== undefined ? { key, cert } : undefined,
      }),
    },
    sender: {
      ...base.sender,
      ...defined({
        verifyTls: bool('verifyTls'),
        ca: file('caFile'),
        connectTimeoutMs: int('connectTimeoutMs'),
        requestTimeoutMs: int('requestTimeoutMs'),
      }),
    },
    delivery: {
      ...base.delivery,
      ...defined({
        concurrency: int('concurrency'),
        maxInFlightPerSubscriber: int('maxInFlightPerSubscriber'),
        leaseMs: int('leaseMs'),
        maxAttempts: int('maxAttempts'),
        maxAgeMs: int('maxAgeMs'),
      }),
      ...(read('backoffBaseMs') !== undefined
        ? { backoff: { ...base.delivery?.backoff, baseMs: int('backoffBaseMs') as number } }
        : {}),
    },
    upkeep: {
      ...base.upkeep,
      ...defined({ autodropHighBytes: int('autodropHighBytes'), autodropLowBytes: int('autodropLowBytes') }),
    },
  };
}

/** `api,delivery` to roles; throws a `ConfigError` naming `source` on an unknown one. */
export function parseRoles(raw: string, source: string): RouterRole[] {
  const roles = raw
    .split(/[\s,]+/)
    .filter((r) => r !== '')
    .map((r) => r.toLowerCase());
  const unknown = roles.filter((r) => !isRouterRole(r));
  if (roles.length === 0 || unknown.length > 0) {
    throw new ConfigError(
      `${source} lists roles among ${ROUTER_ROLES.join(', ')}, separated by commas; got ${JSON.stringify(raw)}`,
    );
  }
  return [...new Set(roles)] as RouterRole[];
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
