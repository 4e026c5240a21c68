import { DEFAULT_CONFIG } from './config.js';
import { FLAT_GROUP_FORMS, FLAT_OPTION_NAMES } from './flat-option-names.js';

/** One option as the environment sees it. */
export interface OptionLeaf {
  /** Its dotted path (`drains.maxEvents`). */
  readonly path: string;
  /** Its default (`undefined` for `redis.cluster`). */
  readonly defaultValue: unknown;
}

/** Every option, one per leaf of {@link DEFAULT_CONFIG} (`handlers.backoff` gives three). */
export function optionLeaves(from: object = DEFAULT_CONFIG, prefix = ''): OptionLeaf[] {
  return Object.entries(from).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? optionLeaves(value, `${prefix}${key}.`)
      : [{ path: `${prefix}${key}`, defaultValue: value }],
  );
}

/** The variable named after an option's path: `drains.maxEvents` is `COMMITBUS_DRAINS_MAX_EVENTS`. */
export function envNameOf(path: string): string {
  return `COMMITBUS_${path
    .replace(/\./g, '_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()}`;
}

/** Older names, read when the option's own is not set. */
const OLDER_NAMES: Readonly<Record<string, readonly string[]>> = {
  'redis.url': ['REDIS_URL'],
  'redis.cluster': ['REDIS_CLUSTER_NODES'],
};

/**
 * The variables an option is read from, its own first: {@link envNameOf} its
 * path, then the names it had before options were grouped
 * (`COMMITBUS_MAX_EVENTS`, `REDIS_URL`), which keep working.
 */
export function envVarsOf(path: string): readonly string[] {
  const names = [envNameOf(path), ...(OLDER_NAMES[path] ?? [])];
  for (const [flat, flatPath] of Object.entries({ ...FLAT_OPTION_NAMES, ...FLAT_GROUP_FORMS })) {
    if (flatPath === path) names.push(envNameOf(flat));
  }
  return [...new Set(names)];
}

/** Every option's path and its environment variables, its own first. */
export const CONFIG_ENV_VARS: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(optionLeaves().map(({ path }) => [path, envVarsOf(path)])),
);
