import { consoleLogger, type Logger } from '../support/logger.js';
import type { CommitbusOptions, ResolvedCommitbusOptions } from './commitbus-options.js';
import { warnDeprecatedOptions } from './deprecation-warnings.js';
import { parseEnvBoolean, parseEnvInteger, parseEnvNumber } from './env-values.js';
import { ConfigError } from './errors/config.error.js';
import {
  FLAT_OPTION_NAMES,
  type FlatOptionName,
  getPath,
  SPLIT_OPTIONS,
  setPath,
} from './flat-option-names.js';
import {
  type DeprecatedOptionUse,
  type GivenOptions,
  layerGiven,
  normalizeOptions,
} from './normalize-options.js';
import { envNameOf, envVarsOf, optionLeaves } from './option-env.js';
import { rememberRedisGiven } from './redis-given.js';
import { resolveOptions } from './resolve-options.js';
import { rememberTransportAsked } from './transport-asked.js';
import { transportNamed } from './transport-names.js';

/** Options read as fractions rather than whole numbers. */
const FRACTIONS = new Set(['handlers.backoff.jitter']);

/**
 * Reads every option from the environment, on top of the defaults and under
 * `overrides`. Each option's variable is `COMMITBUS_` and its path in upper
 * snake case (`drains.maxEvents`: `COMMITBUS_DRAINS_MAX_EVENTS`); the names
 * from before options were grouped (`COMMITBUS_MAX_EVENTS`, `REDIS_URL`,
 * `REDIS_CLUSTER_NODES`, `COMMITBUS_PREFIX`) keep working (the README's
 * "Configuration" table lists every option's variables). `COMMITBUS_LOCK_DURATION_MS`
 * and `COMMITBUS_DELAYED_POLL_MS` still set `ordering.leaseMs` and
 * `ordering.upkeepMs` too, as they did, unless those have their own variable
 * or override; that is warned about on `logger` (once per logger), as are
 * deprecated flat names in `overrides`. `REDIS_CLUSTER_NODES` lists nodes
 * separated by commas; booleans take true/false, yes/no, on/off or 1/0. The
 * transport is not an option: `transportFromEnv()` (`commitbus/transports`)
 * picks the adapter from the same variables (`COMMITBUS_TRANSPORT=redis`
 * marks these options as naming a Redis, and `sql` or `sqlite` as asking
 * for that adapter, so a bus given them and no adapter is refused rather
 * than run in memory; a value other than `redis`, `bullmq`, `sql`, `sqlite` or `memory` is a
 * `ConfigError`, as `transportFromEnv()` says). A wrong value throws a `ConfigError` naming the variable, the
 * option and the value (a Redis URL with its credentials masked).
 */
export function loadConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: CommitbusOptions = {},
  logger: Logger = consoleLogger,
): ResolvedCommitbusOptions {
  const fromEnv: Record<string, unknown> = {};
  for (const { path, defaultValue } of optionLeaves()) {
    const found = readVariable(env, path);
    if (found === undefined) continue;
    setPath(fromEnv, path, parse(path, defaultValue, found.variable, found.raw));
  }
  const { given, deprecated } = normalizeOptions(overrides);
  const splitUses = carrySplitVariables(env, fromEnv, given);
  const merged = layerGiven(fromEnv, given);
  const options = resolveOptions(merged as CommitbusOptions);
  // The variable that named the transport: a bus on these options given no adapter is refused
  // unless it asked for what such a bus opens (memory), rather than run in memory unnoticed.
  const transport = transportNamed(env);
  if (transport === 'redis' || transport === 'bullmq') rememberRedisGiven(options, true);
  if (transport !== undefined) rememberTransportAsked(options, transport);
  const uses = [...splitUses, ...deprecated];
  if (uses.length > 0) warnDeprecatedOptions(logger)(uses);
  return options;
}

/**
 * What the variables named after {@link SPLIT_OPTIONS} (`COMMITBUS_LOCK_DURATION_MS`)
 * did before the split, kept: such a variable, when set, sets the option split
 * off too (`ordering.leaseMs`) unless that has its own variable or override.
 * Returns the variables that did, to be warned about.
 */
function carrySplitVariables(
  env: NodeJS.ProcessEnv,
  fromEnv: Record<string, unknown>,
  given: GivenOptions,
): DeprecatedOptionUse[] {
  const uses: DeprecatedOptionUse[] = [];
  for (const [flat, also] of Object.entries(SPLIT_OPTIONS) as [FlatOptionName, string][]) {
    const variable = envNameOf(flat);
    const path = FLAT_OPTION_NAMES[flat];
    if (!env[variable]?.trim()) continue;
    if (getPath(fromEnv, also) !== undefined || getPath(given, also) !== undefined) continue;
    setPath(fromEnv, also, getPath(fromEnv, path));
    uses.push({
      name: variable,
      replacement: `${envNameOf(path)} (and ${envNameOf(also)})`,
      kind: 'variable',
    });
  }
  return uses;
}

/** The first of the option's variables that is set; throws when two are set to different values. */
function readVariable(env: NodeJS.ProcessEnv, path: string): { variable: string; raw: string } | undefined {
  let found: { variable: string; raw: string } | undefined;
  for (const variable of envVarsOf(path)) {
    const raw = env[variable]?.trim();
    if (raw === undefined || raw === '') continue;
    if (found === undefined) found = { variable, raw };
    else if (found.raw !== raw) {
      // Values not shown: one may hold a password.
      throw new ConfigError(
        `${found.variable} and ${variable} both set ${path}, to different values: set ${found.variable} only`,
      );
    }
  }
  return found;
}

function parse(path: string, defaultValue: unknown, variable: string, raw: string): unknown {
  if (path === 'redis.cluster') return raw.split(/[\s,]+/).filter((node) => node !== '');
  if (typeof defaultValue === 'boolean') return parseEnvBoolean(variable, raw, path);
  if (typeof defaultValue === 'number') {
    return FRACTIONS.has(path) ? parseEnvNumber(variable, raw, path) : parseEnvInteger(variable, raw, path);
  }
  if (typeof defaultValue === 'string') return raw;
  throw new ConfigError(`${path} cannot be read from ${variable}: set it in code`);
}
