import type { ResolvedCommitbusOptions } from './commitbus-options.js';
import type { CommitbusConfig } from './config.js';

/**
 * Where each field of the flat {@link CommitbusConfig} lives among the
 * grouped options: the one table between the two shapes. Keys that differ
 * from their path (all but `name`, `shutdownTimeoutMs`) are
 * also the deprecated flat option names, except the two that never were
 * options ({@link NEW_FLAT_FIELDS}).
 */
export const OPTION_PATHS = {
  name: 'name',
  shutdownTimeoutMs: 'shutdownTimeoutMs',
  redisUrl: 'redis.url',
  redisCluster: 'redis.cluster',
  prefix: 'redis.prefix',
  maxEvents: 'drains.maxEvents',
  ttlMs: 'drains.ttlMs',
  batchSize: 'drains.batchSize',
  blockMs: 'drains.blockMs',
  maxConcurrentDrains: 'drains.maxConcurrent',
  scheduleEveryMs: 'drains.scheduleEveryMs',
  claimStaleAfterMs: 'drains.claimStaleAfterMs',
  asyncConcurrency: 'handlers.concurrency',
  defaultAttempts: 'handlers.attempts',
  defaultBackoff: 'handlers.backoff',
  handlerTimeoutMs: 'handlers.timeoutMs',
  maxDeliveries: 'handlers.maxDeliveries',
  lockDurationMs: 'handlers.lockDurationMs',
  publishAttempts: 'publishing.attempts',
  publishBackoffMs: 'publishing.backoffMs',
  maxEventBytes: 'publishing.maxEventBytes',
  dedupeWindowMs: 'publishing.dedupeWindowMs',
  delayedPollMs: 'publishing.delayedPollMs',
  outbox: 'outbox.enabled',
  outboxGraceMs: 'outbox.graceMs',
  outboxRelayEveryMs: 'outbox.relayEveryMs',
  outboxRelayBatchSize: 'outbox.relayBatchSize',
  ordering: 'ordering.mode',
  orderedConcurrency: 'ordering.concurrency',
  orderingLeaseMs: 'ordering.leaseMs',
  orderingUpkeepMs: 'ordering.upkeepMs',
  handledRetentionMs: 'idempotency.retentionMs',
  rulesRefreshMs: 'scheduling.rulesRefreshMs',
} as const satisfies Record<keyof CommitbusConfig, string>;

/** Flat fields added when their option was split off; no flat option by these names ever existed. */
export const NEW_FLAT_FIELDS: ReadonlySet<string> = new Set(['orderingLeaseMs', 'orderingUpkeepMs']);

/**
 * Deprecated flat names that used to do two jobs: given alone, they still
 * set the option split off from them too, so old configurations mean what
 * they meant.
 */
export const SPLIT_OPTIONS: Readonly<Record<string, string>> = {
  lockDurationMs: 'ordering.leaseMs',
  delayedPollMs: 'ordering.upkeepMs',
};

/** The grouped options, as the flat configuration the code reads. */
export function flattenOptions(options: ResolvedCommitbusOptions): CommitbusConfig {
  const flat: Record<string, unknown> = {};
  for (const [key, path] of Object.entries(OPTION_PATHS)) {
    const value = getPath(options, path);
    if (value !== undefined) flat[key] = value;
  }
  return flat as unknown as CommitbusConfig;
}

/** The value at a dotted `path` of a nested object, or `undefined`. */
export function getPath(from: object, path: string): unknown {
  let at: unknown = from;
  for (const part of path.split('.')) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** Sets a dotted `path` of a nested record, creating the groups on the way. */
export function setPath(into: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  const last = parts.pop() as string;
  let at = into;
  for (const part of parts) {
    const next = at[part];
    if (typeof next !== 'object' || next === null) at[part] = {};
    at = at[part] as Record<string, unknown>;
  }
  at[last] = value;
}
