import type { CommitbusOptions } from './commitbus-options.js';
import { DEFAULT_CONFIG } from './config.js';
import { ConfigError } from './errors/config.error.js';
import {
  FLAT_GROUP_FORMS,
  FLAT_OPTION_NAMES,
  getPath,
  isFlatOptionName,
  SPLIT_OPTIONS,
  setPath,
} from './flat-option-names.js';

/** A deprecated name that was used, and where its value belongs now. */
export interface DeprecatedOptionUse {
  /** The flat option name given (`lockDurationMs`), or the environment variable read (`COMMITBUS_LOCK_DURATION_MS`). */
  readonly name: string;
  /**
   * Its new place (`handlers.lockDurationMs`), with the split-off option when
   * there is one; for a variable, the variables to set instead.
   */
  readonly replacement: string;
  /**
   * What `name` is.
   * @defaultValue `'option'`
   */
  readonly kind?: 'option' | 'variable';
}

/** Options as given, grouped, with only what was given. */
export type GivenOptions = Record<string, unknown>;

const TOP_LEVEL = new Set(['name', 'shutdownTimeoutMs']);
const GROUPS = new Set(
  Object.entries(DEFAULT_CONFIG)
    .filter(([, value]) => typeof value === 'object')
    .map(([key]) => key),
);

/** What the option that named the transport by a string says now that adapters are values. */
const TRANSPORT_OPTION_GONE =
  "the transport option is gone: give the bus an adapter, createEventBus({ transport: redisTransport({ url }) }) from 'commitbus/redis', sqlTransport({ dataSource }) or sqliteTransport({ file }) from 'commitbus/sql', or transportFromEnv() from 'commitbus/transports' to pick it from REDIS_URL, REDIS_CLUSTER_NODES and COMMITBUS_TRANSPORT";

/**
 * Sorts `input` into grouped options: grouped ones as they are, deprecated
 * flat ones moved to their place (and listed in `deprecated`): the one place
 * the flat names are read. Throws {@link ConfigError} for an unknown
 * option, or one given by both names.
 */
export function normalizeOptions(input: CommitbusOptions | undefined): {
  given: GivenOptions;
  deprecated: DeprecatedOptionUse[];
} {
  const given: GivenOptions = {};
  const deprecated: DeprecatedOptionUse[] = [];
  if (input === undefined || input === null) return { given, deprecated };
  if (typeof input !== 'object') {
    throw new ConfigError(`config must be an object of options, got ${typeof input}`);
  }
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (key === 'transport') throw new ConfigError(TRANSPORT_OPTION_GONE);
    if (TOP_LEVEL.has(key)) {
      given[key] = value;
    } else if (GROUPS.has(key) && isGroup(key, value)) {
      given[key] = copyGroup(key, value as Record<string, unknown>);
    } else if (isFlatOptionName(key)) {
      flat.set(key, FLAT_OPTION_NAMES[key]);
    } else if (Object.hasOwn(FLAT_GROUP_FORMS, key)) {
      flat.set(key, FLAT_GROUP_FORMS[key] as string);
    } else {
      throw new ConfigError(
        `unknown option ${JSON.stringify(key)}: the options are ${[...TOP_LEVEL, ...GROUPS].join(', ')} (see DEFAULT_CONFIG and the README's "Configuration")`,
      );
    }
  }
  for (const [key, path] of flat) {
    const value = (input as unknown as Record<string, unknown>)[key];
    if (getPath(given, path) !== undefined) {
      throw new ConfigError(
        `${path} is given twice, as ${path} and by its deprecated flat name ${key}: keep ${path} only`,
      );
    }
    setPath(given, path, key === 'defaultBackoff' && isRecord(value) ? { ...value } : value);
    const also = SPLIT_OPTIONS[key as keyof typeof SPLIT_OPTIONS];
    deprecated.push({ name: key, replacement: also === undefined ? path : `${path} (and ${also})` });
  }
  // A split option's old name keeps its old second job unless the new option is given.
  for (const [key, also] of Object.entries(SPLIT_OPTIONS)) {
    const path = flat.get(key);
    if (path !== undefined && getPath(given, also) === undefined) {
      setPath(given, also, getPath(given, path));
    }
  }
  return { given, deprecated };
}

/**
 * `input` laid over `defaults`, both sorted as {@link normalizeOptions} does
 * (the deprecated names `input` used go to `onDeprecated`): grouped options
 * that a bus takes without warnings.
 */
export function layerOptions(
  defaults: CommitbusOptions,
  input: CommitbusOptions | undefined,
  onDeprecated: (uses: readonly DeprecatedOptionUse[]) => void,
): CommitbusOptions {
  const { given, deprecated } = normalizeOptions(input);
  if (deprecated.length > 0) onDeprecated(deprecated);
  return layerGiven(normalizeOptions(defaults).given, given) as CommitbusOptions;
}

/** `base` with everything in `top` laid over it, group by group. */
export function layerGiven(base: GivenOptions, top: GivenOptions): GivenOptions {
  const merged: GivenOptions = { ...base };
  for (const [key, value] of Object.entries(top)) {
    const under = base[key];
    merged[key] = isGroupValue(value) && isGroupValue(under) ? layerGiven(under, value) : value;
  }
  return merged;
}

/** A plain object of options (not a list of cluster nodes, not an ioredis Cluster). */
function isGroupValue(value: unknown): value is GivenOptions {
  return isRecord(value) && !('isCluster' in value);
}

/** `outbox: true` and `ordering: 'on'` are the flat forms; a group is an object. */
function isGroup(key: string, value: unknown): boolean {
  if (isRecord(value)) return true;
  if (key === 'outbox' || key === 'ordering') return false;
  throw new ConfigError(
    `${key} must be an object of ${key} options (${Object.keys(groupDefaults(key)).join(', ')}), got ${typeof value}`,
  );
}

function copyGroup(group: string, value: Record<string, unknown>): Record<string, unknown> {
  const known = groupDefaults(group);
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (!Object.hasOwn(known, key)) {
      throw new ConfigError(
        `unknown option ${group}.${key}: the ${group} options are ${Object.keys(known).join(', ')}`,
      );
    }
    if (inner === undefined) continue;
    copy[key] = key === 'backoff' && isRecord(inner) ? { ...inner } : inner;
  }
  return copy;
}

function groupDefaults(group: string): Record<string, unknown> {
  return (DEFAULT_CONFIG as unknown as Record<string, Record<string, unknown>>)[group] ?? {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
