import { backoffProblem } from '../support/retry-policy.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import type { CommitbusOptions, ResolvedCommitbusOptions } from './commitbus-options.js';
import { DEFAULT_CONFIG } from './config.js';
import { ConfigError } from './errors/config.error.js';
import { FLAT_GROUP_FORMS, FLAT_OPTION_NAMES, getPath, isFlatOptionName } from './flat-option-names.js';
import { maskedOnInspect } from './masked-redis.js';
import { type DeprecatedOptionUse, normalizeOptions } from './normalize-options.js';
import { envNameOf } from './option-env.js';
import { parseClusterNode } from './redis-cluster-node.js';
import { rememberRedisGiven } from './redis-given.js';
import { redactRedisUrl, redisUrlProblem } from './redis-url.js';

/** Called with the deprecated flat names an input used. */
export type OnDeprecated = (uses: readonly DeprecatedOptionUse[]) => void;

const POSITIVE_INTEGERS = [
  'drains.maxEvents',
  'drains.ttlMs',
  'drains.batchSize',
  'drains.blockMs',
  'drains.maxConcurrent',
  'drains.claimStaleAfterMs',
  'handlers.concurrency',
  'handlers.attempts',
  'handlers.maxDeliveries',
  'handlers.lockDurationMs',
  'publishing.attempts',
  'publishing.dedupeWindowMs',
  'publishing.maxEventBytes',
  'publishing.delayedPollMs',
  'shutdownTimeoutMs',
  'outbox.graceMs',
  'outbox.relayEveryMs',
  'outbox.relayBatchSize',
  'idempotency.retentionMs',
  'scheduling.rulesRefreshMs',
  'workers.beatEveryMs',
  'workers.goneAfterMs',
  'history.flushEveryMs',
  'audit.maxEntries',
  'ordering.concurrency',
  'ordering.leaseMs',
  'ordering.upkeepMs',
] as const;

const NON_NEGATIVE_INTEGERS = [
  'drains.scheduleEveryMs',
  'publishing.backoffMs',
  'handlers.timeoutMs',
  'deadLetters.maxCount',
  'deadLetters.maxAgeMs',
] as const;

/**
 * Millisecond options that end up in a timer. `publishing.dedupeWindowMs`
 * and `idempotency.retentionMs` are kept in Redis or compared with clocks,
 * so they may be longer.
 */
const TIMER_OPTIONS = [
  'drains.ttlMs',
  'drains.blockMs',
  'drains.scheduleEveryMs',
  'drains.claimStaleAfterMs',
  'handlers.timeoutMs',
  'handlers.lockDurationMs',
  'publishing.backoffMs',
  'publishing.delayedPollMs',
  'shutdownTimeoutMs',
  'outbox.graceMs',
  'outbox.relayEveryMs',
  'scheduling.rulesRefreshMs',
  'workers.beatEveryMs',
  'history.flushEveryMs',
  'ordering.leaseMs',
  'ordering.upkeepMs',
] as const;

/**
 * Fills in defaults and validates grouped options (or, deprecated, flat
 * ones: each name used is passed to `onDeprecated`): what a bus, its
 * transport and its components read (`bus.config`). Options it returned may
 * be given back (`createEventBus`, `startRouter`) as they are. Throws
 * {@link ConfigError} naming the option, its environment variable and the
 * value it got (never a password), for an unknown option, and for one given
 * both by its grouped and its flat name.
 */
export function resolveOptions(
  input: CommitbusOptions = {},
  onDeprecated?: OnDeprecated,
): ResolvedCommitbusOptions {
  const { given, deprecated } = normalizeOptions(input);
  const resolved = { ...DEFAULT_CONFIG, ...given } as Record<string, unknown>;
  for (const [group, defaults] of Object.entries(DEFAULT_CONFIG)) {
    if (typeof defaults !== 'object' || defaults === null) continue;
    resolved[group] = { ...defaults, ...(given[group] as object | undefined) };
  }
  maskedOnInspect(resolved.redis as ResolvedCommitbusOptions['redis']);
  const handlers = resolved.handlers as ResolvedCommitbusOptions['handlers'];
  handlers.backoff = { ...DEFAULT_CONFIG.handlers.backoff, ...handlers.backoff };
  const options = resolved as unknown as ResolvedCommitbusOptions;
  const givenAs = new Map(deprecated.map(({ name }) => [flatPathOf(name), name]));
  validate(options, (path) => {
    const flat = givenAs.get(path);
    const variable =
      path === 'handlers.backoff' ? `${envNameOf(path)}_TYPE, _DELAY_MS, _JITTER` : envNameOf(path);
    return ` (${flat === undefined ? '' : `given as ${flat}; `}env ${variable})`;
  });
  if (deprecated.length > 0) onDeprecated?.(deprecated);
  rememberRedisGiven(options, input);
  return options;
}

/**
 * Checks resolved options as {@link resolveOptions} checks what it makes
 * (options changed after it, an adapter's Redis applied); throws a
 * `ConfigError` naming the first option that is wrong.
 */
export function checkResolvedOptions(options: ResolvedCommitbusOptions): void {
  validate(options, () => '');
}

function flatPathOf(name: string): string | undefined {
  if (isFlatOptionName(name)) return FLAT_OPTION_NAMES[name];
  return FLAT_GROUP_FORMS[name];
}

/** What ends a message about an option: ` (given as maxEvents; env COMMITBUS_DRAINS_MAX_EVENTS)`. */
type OptionNote = (path: string) => string;

function validate(options: ResolvedCommitbusOptions, env: OptionNote): void {
  checkIntegers(options, env);
  const { ordering, outbox, publishing, handlers } = options;
  if (ordering.mode !== 'auto' && ordering.mode !== 'on' && ordering.mode !== 'off') {
    throw new ConfigError(
      `ordering.mode must be "auto", "on" or "off", got ${JSON.stringify(ordering.mode)}${env('ordering.mode')}`,
    );
  }
  if (ordering.leaseMs <= ordering.upkeepMs) {
    throw new ConfigError(
      `ordering.leaseMs (${ordering.leaseMs}) must exceed ordering.upkeepMs (${ordering.upkeepMs}), which renews it: a worker would lose its keys between renewals`,
    );
  }
  if (options.workers.goneAfterMs <= options.workers.beatEveryMs) {
    throw new ConfigError(
      `workers.goneAfterMs (${options.workers.goneAfterMs}) must exceed workers.beatEveryMs (${options.workers.beatEveryMs}): a running worker would show as gone between its beats`,
    );
  }
  if (typeof options.history.enabled !== 'boolean') {
    throw new ConfigError(
      `history.enabled must be true or false, got ${JSON.stringify(options.history.enabled)}${env('history.enabled')}`,
    );
  }
  if (typeof outbox.enabled !== 'boolean') {
    throw new ConfigError(
      `outbox.enabled must be true or false, got ${JSON.stringify(outbox.enabled)}${env('outbox.enabled')}`,
    );
  }
  // The relay republishes rows older than the grace period; the transport must still remember them.
  const relayedAfterMs = outbox.graceMs + outbox.relayEveryMs;
  if (outbox.enabled && publishing.dedupeWindowMs <= relayedAfterMs) {
    throw new ConfigError(
      `publishing.dedupeWindowMs (${publishing.dedupeWindowMs}) must exceed outbox.graceMs + outbox.relayEveryMs (${relayedAfterMs}): an event the relay republishes after its publisher did publish it would otherwise be handled twice`,
    );
  }
  const backoffIssue = backoffProblem(handlers.backoff);
  if (backoffIssue !== undefined) {
    throw new ConfigError(
      `handlers.backoff must be { type: 'fixed' | 'exponential', delayMs: integer >= 0, jitter?: 0..1 }: ${backoffIssue}, got ${JSON.stringify(handlers.backoff)}${env('handlers.backoff')}`,
    );
  }
  checkRedis(options);
}

function checkIntegers(options: ResolvedCommitbusOptions, env: OptionNote): void {
  const at = (path: string) => getPath(options, path) as number;
  for (const path of POSITIVE_INTEGERS) {
    const value = at(path);
    if (!Number.isInteger(value) || value < 1) {
      throw new ConfigError(`${path} must be a positive integer, got ${String(value)}${env(path)}`);
    }
  }
  for (const path of NON_NEGATIVE_INTEGERS) {
    const value = at(path);
    if (!Number.isInteger(value) || value < 0) {
      throw new ConfigError(`${path} must be an integer >= 0, got ${String(value)}${env(path)}`);
    }
  }
  for (const path of TIMER_OPTIONS) {
    if (at(path) > MAX_TIMER_MS) {
      throw new ConfigError(
        `${path} must be at most ${MAX_TIMER_MS} ms (about 24.8 days, the longest a Node timer waits; a longer one fires at once), got ${at(path)}${env(path)}`,
      );
    }
  }
}

function checkRedis({ redis, name }: ResolvedCommitbusOptions): void {
  if (redis.cluster !== undefined) checkRedisCluster(redis.cluster);
  // Checked on every transport: the router opens Redis connections from it on a memory bus too.
  else checkRedisUrl(redis.url);
  if (!/^[A-Za-z0-9_.-]+$/.test(redis.prefix) || !/^[A-Za-z0-9_.-]+$/.test(name)) {
    throw new ConfigError(
      `redis.prefix and name may only contain letters, digits, "_", "." and "-" (got prefix ${JSON.stringify(redis.prefix)}, name ${JSON.stringify(name)})`,
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
