import type { ResolvedCommitbusOptions } from './commitbus-options.js';

export type { OrderingMode } from './option-groups.js';

/**
 * Every option's default, grouped as the options are, in one place
 * (`redis.cluster` is there, `undefined`, so that every option is listed).
 */
export const DEFAULT_CONFIG: Readonly<ResolvedCommitbusOptions> = deepFreeze({
  name: 'events',
  shutdownTimeoutMs: 30_000,
  redis: { url: 'redis://127.0.0.1:6379', cluster: undefined, prefix: 'commitbus' },
  drains: {
    maxEvents: 1000,
    ttlMs: 300_000,
    batchSize: 100,
    blockMs: 1_000,
    maxConcurrent: 4,
    scheduleEveryMs: 30_000,
    claimStaleAfterMs: 60_000,
  },
  handlers: {
    concurrency: 20,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 1_000, jitter: 0.5 },
    timeoutMs: 30_000,
    maxDeliveries: 5,
    lockDurationMs: 30_000,
  },
  publishing: {
    attempts: 5,
    backoffMs: 100,
    maxEventBytes: 262_144,
    dedupeWindowMs: 600_000,
    delayedPollMs: 250,
  },
  outbox: { enabled: true, graceMs: 5_000, relayEveryMs: 1_000, relayBatchSize: 500 },
  ordering: { mode: 'auto', concurrency: 64, leaseMs: 30_000, upkeepMs: 250 },
  idempotency: { retentionMs: 604_800_000 },
  scheduling: { rulesRefreshMs: 500 },
} satisfies ResolvedCommitbusOptions);

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  }
  return Object.freeze(value);
}
