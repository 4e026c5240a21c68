import type { FlatCommitbusOptions } from './commitbus-options.js';

/**
 * The deprecated flat option names (the options before they were grouped),
 * each with the dotted path of the grouped option it sets now. Read only
 * where options enter (`normalizeOptions`, and the old environment variables
 * named after them); nothing inside commitbus reads options by these names.
 */
export const FLAT_OPTION_NAMES = {
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
  outboxGraceMs: 'outbox.graceMs',
  outboxRelayEveryMs: 'outbox.relayEveryMs',
  outboxRelayBatchSize: 'outbox.relayBatchSize',
  orderedConcurrency: 'ordering.concurrency',
  handledRetentionMs: 'idempotency.retentionMs',
  rulesRefreshMs: 'scheduling.rulesRefreshMs',
} as const satisfies Record<keyof FlatCommitbusOptions, string>;

/**
 * The deprecated flat forms of two groups: `outbox: true | false` sets
 * `outbox.enabled`, `ordering: 'auto' | 'on' | 'off'` sets `ordering.mode`.
 */
export const FLAT_GROUP_FORMS: Readonly<Record<string, string>> = {
  outbox: 'outbox.enabled',
  ordering: 'ordering.mode',
};

/** A deprecated flat option name. */
export type FlatOptionName = keyof typeof FLAT_OPTION_NAMES;

/** Whether `key` is a deprecated flat option name. */
export function isFlatOptionName(key: string): key is FlatOptionName {
  return Object.hasOwn(FLAT_OPTION_NAMES, key);
}

/**
 * Deprecated flat names that used to do two jobs: given alone, they still
 * set the option split off from them too, so old configurations mean what
 * they meant.
 */
export const SPLIT_OPTIONS: Readonly<Partial<Record<FlatOptionName, string>>> = {
  lockDurationMs: 'ordering.leaseMs',
  delayedPollMs: 'ordering.upkeepMs',
};

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
