import { backoffProblem } from '../support/backoff.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import { type CommitbusConfig, DEFAULT_CONFIG } from './config.js';
import { ConfigError } from './errors/config.error.js';
import { parseClusterNode } from './redis-cluster-node.js';
import { redactRedisUrl, redisUrlProblem } from './redis-url.js';

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
] as const satisfies readonly (keyof CommitbusConfig)[];

/**
 * Millisecond options that end up in a timer. `dedupeWindowMs` and
 * `handledRetentionMs` are kept in Redis or compared with clocks, so they may
 * be longer.
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
] as const satisfies readonly (keyof CommitbusConfig)[];

/**
 * Fills in defaults and validates. Throws {@link ConfigError} naming the option
 * and the value it got.
 */
export function resolveConfig(overrides: Partial<CommitbusConfig> = {}): CommitbusConfig {
  const config: CommitbusConfig = {
    ...DEFAULT_CONFIG,
    ...stripUndefined(overrides),
    defaultBackoff: { ...DEFAULT_CONFIG.defaultBackoff, ...overrides.defaultBackoff },
  };
  if (config.transport !== 'memory' && config.transport !== 'bullmq') {
    throw new ConfigError(`transport must be "memory" or "bullmq", got ${JSON.stringify(config.transport)}`);
  }
  for (const key of POSITIVE_INTEGERS) {
    const value = config[key];
    if (!Number.isInteger(value) || value < 1) {
      throw new ConfigError(`${key} must be a positive integer, got ${String(value)}`);
    }
  }
  for (const key of ['scheduleEveryMs', 'publishBackoffMs', 'handlerTimeoutMs'] as const) {
    const value = config[key];
    if (!Number.isInteger(value) || value < 0) {
      throw new ConfigError(`${key} must be an integer >= 0, got ${String(value)}`);
    }
  }
  for (const key of TIMER_OPTIONS) {
    if (config[key] > MAX_TIMER_MS) {
      throw new ConfigError(
        `${key} must be at most ${MAX_TIMER_MS} ms (about 24.8 days, the longest a Node timer waits; a longer one fires at once), got ${config[key]}`,
      );
    }
  }
  if (config.ordering !== 'auto' && config.ordering !== 'on' && config.ordering !== 'off') {
    throw new ConfigError(`ordering must be "auto", "on" or "off", got ${JSON.stringify(config.ordering)}`);
  }
  if (typeof config.outbox !== 'boolean') {
    throw new ConfigError(`outbox must be true or false, got ${JSON.stringify(config.outbox)}`);
  }
  // The relay republishes rows older than the grace period; the transport must still remember them.
  const relayedAfterMs = config.outboxGraceMs + config.outboxRelayEveryMs;
  if (config.outbox && config.dedupeWindowMs <= relayedAfterMs) {
    throw new ConfigError(
      `dedupeWindowMs (${config.dedupeWindowMs}) must exceed outboxGraceMs + outboxRelayEveryMs (${relayedAfterMs}): an event the relay republishes after its publisher did publish it would otherwise be handled twice`,
    );
  }
  const backoffIssue = backoffProblem(config.defaultBackoff);
  if (backoffIssue !== undefined) {
    throw new ConfigError(
      `defaultBackoff must be { type: 'fixed' | 'exponential', delayMs: integer >= 0, jitter?: 0..1 }: ${backoffIssue}, got ${JSON.stringify(config.defaultBackoff)}`,
    );
  }
  if (config.redisCluster !== undefined) checkRedisCluster(config.redisCluster);
  if (config.transport === 'bullmq' && config.redisCluster === undefined) checkRedisUrl(config.redisUrl);
  if (!/^[A-Za-z0-9_.-]+$/.test(config.prefix) || !/^[A-Za-z0-9_.-]+$/.test(config.name)) {
    throw new ConfigError(
      `prefix and name may only contain letters, digits, "_", "." and "-" (got prefix ${JSON.stringify(config.prefix)}, name ${JSON.stringify(config.name)})`,
    );
  }
  return config;
}

function checkRedisUrl(url: unknown): void {
  if (typeof url !== 'string') throw new ConfigError(`redisUrl must be a string, got ${typeof url}`);
  const problem = redisUrlProblem(url);
  if (problem !== undefined) {
    // No `cause`: ioredis's or URL's error would carry the whole URL.
    throw new ConfigError(`redisUrl ${JSON.stringify(redactRedisUrl(url))} is wrong: ${problem}`);
  }
}

function checkRedisCluster(cluster: unknown): void {
  if (Array.isArray(cluster)) {
    if (cluster.length === 0) {
      throw new ConfigError(
        'redisCluster must list at least one node ("host:port"), or be left out for a single Redis',
      );
    }
    for (const node of cluster) parseClusterNode(node);
    return;
  }
  // An ioredis Cluster (checked by shape: the config room does not load ioredis).
  const options = (cluster as { isCluster?: unknown; options?: ClusterShape } | null)?.options;
  if ((cluster as { isCluster?: unknown } | null)?.isCluster !== true || options === undefined) {
    throw new ConfigError(
      'redisCluster must be a list of nodes ("host:port" or { host, port }) or an ioredis Cluster',
    );
  }
  if (options.keyPrefix || options.redisOptions?.keyPrefix) {
    throw new ConfigError(
      'the ioredis Cluster given as redisCluster has a keyPrefix, which commitbus and BullMQ do not support: remove it and use the prefix option',
    );
  }
}

/** What {@link checkRedisCluster} reads of an ioredis Cluster's options. */
interface ClusterShape {
  readonly keyPrefix?: string;
  readonly redisOptions?: { readonly keyPrefix?: string };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
