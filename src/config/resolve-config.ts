import { backoffProblem } from '../support/retry-policy.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import type { CommitbusOptions, ResolvedCommitbusOptions } from './commitbus-options.js';
import { type CommitbusConfig, DEFAULT_CONFIG } from './config.js';
import { ConfigError } from './errors/config.error.js';
import { type DeprecatedOptionUse, markResolved, normalizeOptions } from './normalize-options.js';
import { envNameOf } from './option-env.js';
import { flattenOptions, OPTION_PATHS } from './option-paths.js';
import { parseClusterNode } from './redis-cluster-node.js';
import { rememberRedisGiven } from './redis-given.js';
import { redactRedisUrl, redisUrlProblem } from './redis-url.js';

/** Called with the deprecated flat names an input used. */
export type OnDeprecated = (uses: readonly DeprecatedOptionUse[]) => void;

const POSITIVE_INTEGERS = [
  'maxEvents',
  'ttlMs',
  'batchSize',
  'blockMs',
  'maxConcurrentDrains',
  'claimStaleAfterMs',
  'asyncConcurrency',
  'defaultAttempts',
  'maxDeliveries',
  'publishAttempts',
  'shutdownTimeoutMs',
  'outboxGraceMs',
  'outboxRelayEveryMs',
  'outboxRelayBatchSize',
  'dedupeWindowMs',
  'maxEventBytes',
  'delayedPollMs',
  'handledRetentionMs',
  'lockDurationMs',
  'rulesRefreshMs',
  'orderedConcurrency',
  'orderingLeaseMs',
  'orderingUpkeepMs',
] as const satisfies readonly (keyof CommitbusConfig)[];

const NON_NEGATIVE_INTEGERS = [
  'scheduleEveryMs',
  'publishBackoffMs',
  'handlerTimeoutMs',
] as const satisfies readonly (keyof CommitbusConfig)[];

/**
 * Millisecond options that end up in a timer. `publishing.dedupeWindowMs`
 * and `idempotency.retentionMs` are kept in Redis or compared with clocks,
 * so they may be longer.
 */
const TIMER_OPTIONS = [
  'ttlMs',
  'blockMs',
  'scheduleEveryMs',
  'claimStaleAfterMs',
  'handlerTimeoutMs',
  'publishBackoffMs',
  'shutdownTimeoutMs',
  'outboxGraceMs',
  'outboxRelayEveryMs',
  'delayedPollMs',
  'lockDurationMs',
  'rulesRefreshMs',
  'orderingLeaseMs',
  'orderingUpkeepMs',
] as const satisfies readonly (keyof CommitbusConfig)[];

/**
 * Fills in defaults and validates grouped options (or, deprecated, flat
 * ones: each name used is passed to `onDeprecated`). Throws
 * {@link ConfigError} naming the option, its environment variable and the
 * value it got (never a password), for an unknown option, and for one given
 * both by its grouped and its flat name.
 */
export function resolveOptions(
  input: CommitbusOptions | CommitbusConfig = {},
  onDeprecated?: OnDeprecated,
): ResolvedCommitbusOptions {
  const { given, deprecated } = normalizeOptions(input);
  const resolved = { ...DEFAULT_CONFIG, ...given } as Record<string, unknown>;
  for (const [group, defaults] of Object.entries(DEFAULT_CONFIG)) {
    if (typeof defaults !== 'object' || defaults === null) continue;
    resolved[group] = { ...defaults, ...(given[group] as object | undefined) };
  }
  const handlers = resolved.handlers as ResolvedCommitbusOptions['handlers'];
  handlers.backoff = { ...DEFAULT_CONFIG.handlers.backoff, ...handlers.backoff };
  const options = resolved as unknown as ResolvedCommitbusOptions;
  const givenAs = new Map(deprecated.map(({ name }) => [OPTION_PATHS[name as keyof CommitbusConfig], name]));
  validate(flattenOptions(options), (key) => {
    const path = OPTION_PATHS[key];
    const flat = givenAs.get(path);
    const variable =
      key === 'defaultBackoff' ? `${envNameOf(path)}_TYPE, _DELAY_MS, _JITTER` : envNameOf(path);
    return ` (${flat === undefined ? '' : `given as ${flat}; `}env ${variable})`;
  });
  if (deprecated.length > 0) onDeprecated?.(deprecated);
  rememberRedisGiven(options, input);
  return options;
}

/**
 * {@link resolveOptions}, then the flat configuration the code reads. What it
 * returns may be given back to `createEventBus` or `startRouter` as it is.
 */
export function resolveConfig(
  input: CommitbusOptions | CommitbusConfig = {},
  onDeprecated?: OnDeprecated,
): CommitbusConfig {
  const config = markResolved(flattenOptions(resolveOptions(input, onDeprecated)));
  rememberRedisGiven(config, input);
  return config;
}

/**
 * Checks a flat configuration as {@link resolveConfig} checks what it
 * makes; throws a `ConfigError` naming the first option that is wrong.
 */
export function checkConfig(config: CommitbusConfig): void {
  validate(config, () => '');
}

/** `drains.maxEvents`: how messages name an option. */
function option(key: keyof CommitbusConfig): string {
  return OPTION_PATHS[key];
}

/** What ends a message about an option: ` (given as maxEvents; env COMMITBUS_DRAINS_MAX_EVENTS)`. */
type OptionNote = (key: keyof CommitbusConfig) => string;

function validate(config: CommitbusConfig, env: OptionNote): void {
  for (const key of POSITIVE_INTEGERS) {
    const value = config[key];
    if (!Number.isInteger(value) || value < 1) {
      throw new ConfigError(`${option(key)} must be a positive integer, got ${String(value)}${env(key)}`);
    }
  }
  for (const key of NON_NEGATIVE_INTEGERS) {
    const value = config[key];
    if (!Number.isInteger(value) || value < 0) {
      throw new ConfigError(`${option(key)} must be an integer >= 0, got ${String(value)}${env(key)}`);
    }
  }
  for (const key of TIMER_OPTIONS) {
    if (config[key] > MAX_TIMER_MS) {
      throw new ConfigError(
        `${option(key)} must be at most ${MAX_TIMER_MS} ms (about 24.8 days, the longest a Node timer waits; a longer one fires at once), got ${config[key]}${env(key)}`,
      );
    }
  }
  if (config.ordering !== 'auto' && config.ordering !== 'on' && config.ordering !== 'off') {
    throw new ConfigError(
      `ordering.mode must be "auto", "on" or "off", got ${JSON.stringify(config.ordering)}${env('ordering')}`,
    );
  }
  if (config.orderingLeaseMs <= config.orderingUpkeepMs) {
    throw new ConfigError(
      `ordering.leaseMs (${config.orderingLeaseMs}) must exceed ordering.upkeepMs (${config.orderingUpkeepMs}), which renews it: a worker would lose its keys between renewals`,
    );
  }
  if (typeof config.outbox !== 'boolean') {
    throw new ConfigError(
      `outbox.enabled must be true or false, got ${JSON.stringify(config.outbox)}${env('outbox')}`,
    );
  }
  // The relay republishes rows older than the grace period; the transport must still remember them.
  const relayedAfterMs = config.outboxGraceMs + config.outboxRelayEveryMs;
  if (config.outbox && config.dedupeWindowMs <= relayedAfterMs) {
    throw new ConfigError(
      `publishing.dedupeWindowMs (${config.dedupeWindowMs}) must exceed outbox.graceMs + outbox.relayEveryMs (${relayedAfterMs}): an event the relay republishes after its publisher did publish it would otherwise be handled twice`,
    );
  }
  const backoffIssue = backoffProblem(config.defaultBackoff);
  if (backoffIssue !== undefined) {
    throw new ConfigError(
      `handlers.backoff must be { type: 'fixed' | 'exponential', delayMs: integer >= 0, jitter?: 0..1 }: ${backoffIssue}, got ${JSON.stringify(config.defaultBackoff)}${env('defaultBackoff')}`,
    );
  }
  if (config.redisCluster !== undefined) checkRedisCluster(config.redisCluster);
  // Checked on every transport: the router opens Redis connections from it on a memory bus too.
  else checkRedisUrl(config.redisUrl);
  if (!/^[A-Za-z0-9_.-]+$/.test(config.prefix) || !/^[A-Za-z0-9_.-]+$/.test(config.name)) {
    throw new ConfigError(
      `redis.prefix and name may only contain letters, digits, "_", "." and "-" (got prefix ${JSON.stringify(config.prefix)}, name ${JSON.stringify(config.name)})`,
    );
  }
}

function checkRedisUrl(url: unknown): void {
  if (typeof url !== 'string') throw new ConfigError(`redis.url must be a string, got ${typeof url}`);
  const problem = redisUrlProblem(url);
  if (problem !== undefined) {
    // No `cause`: ioredis's or URL's error would carry the whole URL.
    throw new ConfigError(
      `redis.url ${JSON.stringify(redactRedisUrl(url))} is wrong: ${problem} (env COMMITBUS_REDIS_URL or REDIS_URL)`,
    );
  }
}

function checkRedisCluster(cluster: unknown): void {
  if (Array.isArray(cluster)) {
    if (cluster.length === 0) {
      throw new ConfigError(
        'redis.cluster must list at least one node ("host:port"), or be left out for a single Redis',
      );
    }
    for (const node of cluster) parseClusterNode(node);
    return;
  }
  // An ioredis Cluster (checked by shape: the config room does not load ioredis).
  const options = (cluster as { isCluster?: unknown; options?: ClusterShape } | null)?.options;
  if ((cluster as { isCluster?: unknown } | null)?.isCluster !== true || options === undefined) {
    throw new ConfigError(
      'redis.cluster must be a list of nodes ("host:port" or { host, port }) or an ioredis Cluster',
    );
  }
  if (options.keyPrefix || options.redisOptions?.keyPrefix) {
    throw new ConfigError(
      'the ioredis Cluster given as redis.cluster has a keyPrefix, which commitbus and BullMQ do not support: remove it and use the redis.prefix option',
    );
  }
}

/** What {@link checkRedisCluster} reads of an ioredis Cluster's options. */
interface ClusterShape {
  readonly keyPrefix?: string;
  readonly redisOptions?: { readonly keyPrefix?: string };
}
