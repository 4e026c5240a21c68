import { parseEnvInteger } from '../config/env-values.js';
import { ConfigError } from '../config/errors/config.error.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import type { RouterOptions } from './router-options.js';

/**
 * Routemaster's variables the router reads (beside `ROUTEMASTER_ROOT_KEY`,
 * `ROUTEMASTER_SSL_VERIFY` and `ROUTEMASTER_CLIENTS`, read as aliases of
 * ours), each for the setting of ours that has its meaning, in its units.
 */
export const ROUTEMASTER_ENV_VARS = {
  maxEventData: 'ROUTEMASTER_MAX_EVENT_DATA',
  connectTimeout: 'ROUTEMASTER_CONNECT_TIMEOUT',
  timeout: 'ROUTEMASTER_TIMEOUT',
  redisMaxMem: 'ROUTEMASTER_REDIS_MAX_MEM',
  redisMinFree: 'ROUTEMASTER_REDIS_MIN_FREE',
  maxBackoffMs: 'MAX_BACKOFF_MS',
} as const;

/** Routemaster's `ROUTEMASTER_REDIS_MIN_FREE` when it is not set (its `.env`): 10 MB. */
export const ROUTEMASTER_DEFAULT_MIN_FREE = 10_000_000;

/** A variable's trimmed value, or `undefined` when unset or blank. */
function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

/** Whole seconds >= 1 from `name`, in milliseconds. */
function seconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const count = parseEnvInteger(name, raw);
  if (count < 1) throw new ConfigError(`${name} must be a whole number of seconds >= 1, got "${raw}"`);
  const most = Math.floor(MAX_TIMER_MS / 1_000);
  if (count > most) {
    throw new ConfigError(
      `${name} must be at most ${most} seconds (about 24.8 days, the longest a Node timer waits; a longer one fires at once), got "${raw}"`,
    );
  }
  return count * 1_000;
}

/**
 * The autodrop marks of Routemaster's `ROUTEMASTER_REDIS_MAX_MEM` and
 * `ROUTEMASTER_REDIS_MIN_FREE`, as Routemaster computes them: drop above
 * max − min_free, down to max − 2 × min_free.
 */
function autodropMarks(env: NodeJS.ProcessEnv): RouterOptions['upkeep'] {
  const { redisMaxMem, redisMinFree } = ROUTEMASTER_ENV_VARS;
  const maxRaw = value(env, redisMaxMem);
  if (maxRaw === undefined) return undefined;
  const max = parseEnvInteger(redisMaxMem, maxRaw);
  const freeRaw = value(env, redisMinFree);
  const free = freeRaw === undefined ? ROUTEMASTER_DEFAULT_MIN_FREE : parseEnvInteger(redisMinFree, freeRaw);
  if (free < 1 || max <= 2 * free) {
    throw new ConfigError(
      `${redisMaxMem} (${max}) must exceed twice ${redisMinFree} (${free}${freeRaw === undefined ? ', its default' : ''}), which must be >= 1: autodrop drops batches above ${redisMaxMem} - ${redisMinFree} bytes, down to ${redisMaxMem} - 2 x ${redisMinFree}`,
    );
  }
  return { autodropHighBytes: max - free, autodropLowBytes: max - 2 * free };
}

/**
 * `base` with what a Routemaster deployment's environment sets laid over it,
 * for the knobs ours leave unset (`ours` says which of ours are set: a knob
 * set by one of ours takes nothing from Routemaster's). Sizes and marks keep
 * Routemaster's meaning: `ROUTEMASTER_MAX_EVENT_DATA` counts MessagePack
 * bytes, the timeouts are seconds. A wrong value throws a `ConfigError`
 * naming the variable.
 */
export function withRoutemasterEnv(
  base: RouterOptions,
  env: NodeJS.ProcessEnv,
  ours: (name: string) => boolean,
): RouterOptions {
  const found = routemasterOptions(env, ours);
  return {
    ...base,
    api: { ...base.api, ...found.api },
    sender: { ...base.sender, ...found.sender },
    delivery: {
      ...base.delivery,
      ...(found.delivery?.backoff === undefined
        ? {}
        : { backoff: { ...base.delivery?.backoff, ...found.delivery.backoff } }),
    },
    upkeep: { ...base.upkeep, ...found.upkeep },
  };
}

function routemasterOptions(env: NodeJS.ProcessEnv, ours: (name: string) => boolean): RouterOptions {
  const vars = ROUTEMASTER_ENV_VARS;
  const options: { -readonly [K in keyof RouterOptions]: RouterOptions[K] } = {};
  const maxData = value(env, vars.maxEventData);
  if (maxData !== undefined && !ours('ROUTER_MAX_DATA_BYTES')) {
    const bytes = parseEnvInteger(vars.maxEventData, maxData);
    options.api = {
      maxDataBytes: bytes,
      ...(ours('ROUTER_DATA_LIMIT_ENCODING') ? {} : { dataLimitEncoding: 'msgpack' as const }),
    };
  }
  const connectTimeoutMs = ours('ROUTER_CONNECT_TIMEOUT_MS') ? undefined : seconds(env, vars.connectTimeout);
  const requestTimeoutMs = ours('ROUTER_REQUEST_TIMEOUT_MS') ? undefined : seconds(env, vars.timeout);
  if (connectTimeoutMs !== undefined || requestTimeoutMs !== undefined) {
    options.sender = {
      ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
      ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    };
  }
  const backoff = value(env, vars.maxBackoffMs);
  if (backoff !== undefined && !ours('ROUTER_BACKOFF_BASE_MS')) {
    options.delivery = { backoff: { baseMs: parseEnvInteger(vars.maxBackoffMs, backoff) } };
  }
  const marks = ours('ROUTER_AUTODROP_HIGH_BYTES') ? undefined : autodropMarks(env);
  if (marks !== undefined) options.upkeep = marks;
  return options;
}
