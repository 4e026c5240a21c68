import type { ResolvedCommitbusOptions } from './commitbus-options.js';
import type { EventStoreDefaults } from './event-store-option-groups.js';
import type { RouterDefaults } from './router-option-groups.js';

export type { OrderingMode } from './option-groups.js';

/** Every default of commitbus: the bus's options, and the router's and the event store's groups beside them. */
export interface CommitbusDefaults extends ResolvedCommitbusOptions {
  /** The HTTP event router's (`commitbus/router`). */
  readonly router: RouterDefaults;
  /** The event store's and its subscriptions' (`createEventStore`). */
  readonly eventStore: EventStoreDefaults;
}

/**
 * Every default, in one place, grouped by what it tunes: the bus's options
 * (which {@link DEFAULT_CONFIG} is), then `router` and `eventStore`, whose
 * groups the router and the event store use as they are
 * (`DEFAULT_UPKEEP_SETTINGS` is `DEFAULTS.router.upkeep`). Deep-frozen.
 * Defaults worked out from other settings stay in code: the delivery lease
 * grows with the sender's timeouts, `autodropLowBytes` is 80 % of the high
 * mark. `redis.cluster` is there, `undefined`, so that every option is listed.
 */
export const DEFAULTS = deepFreeze({
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
  deadLetters: { maxCount: 10_000, maxAgeMs: 180 * 86_400_000 },
  workers: { beatEveryMs: 5_000, goneAfterMs: 15_000 },
  history: { enabled: true, flushEveryMs: 5_000 },
  audit: { maxEntries: 10_000 },
  router: {
    delivery: {
      concurrency: 64,
      maxInFlightPerSubscriber: 16,
      leaseMs: 30_000,
      idleWaitMs: 250,
      backoff: { baseMs: 60_000, floorMs: 1_000, maxMs: 3_600_000 },
      maxAttempts: 25,
      maxAgeMs: 3 * 24 * 3_600_000,
    },
    upkeep: {
      promoteEveryMs: 10,
      recoverEveryMs: 1_000,
      autodropEveryMs: 10_000,
      autodropHighBytes: 0,
      autodropLowBytes: 0,
      autodropBatchSize: 100,
      autodropMaxBatchesPerRun: 1_000,
    },
    api: {
      allowHttpUrls: false,
      maxDataBytes: 65_536,
      dataLimitEncoding: 'json',
      bodyLimit: 1_048_576,
      tokenCacheMs: 5_000,
      metricsNeedRootKey: false,
      scalingDeadlineMs: 1_000,
      scalingThreshold: 100,
      realm: 'commitbus',
    },
    subscriber: { maxEvents: 100, timeoutMs: 500 },
  },
  eventStore: {
    unknownTypes: 'halt',
    dispatchUnknownTypes: false,
    maxEventBytes: 1_000_000,
    batchSize: 200,
    pollMs: 50,
    takeoverMs: 500,
    leaseMs: 15_000,
    retryDelayMs: 1_000,
    maxRetryDelayMs: 300_000,
    writerIdleTimeoutMs: 60_000,
    stepTimeoutMs: 30_000,
    sqliteWal: true,
    subscription: {
      from: 'beginning',
      statuses: ['handled', 'ignored'],
      batchSize: 100,
      pollMs: 100,
      leaseMs: 15_000,
      takeoverMs: 1_000,
      retryDelayMs: 1_000,
      maxRetryDelayMs: 60_000,
      maxAttempts: 10,
      handlerTimeoutMs: 60_000,
      stopTimeoutMs: 30_000,
    },
  },
} as const satisfies CommitbusDefaults);

/**
 * The bus's options' defaults, grouped as the options are: {@link DEFAULTS}
 * without `router` and `eventStore` (its groups are DEFAULTS' own objects).
 * Deep-frozen; the environment variables are named after its leaves.
 */
export const DEFAULT_CONFIG: Readonly<ResolvedCommitbusOptions> = Object.freeze(busDefaults(DEFAULTS));

function busDefaults({ router: _router, eventStore: _eventStore, ...bus }: CommitbusDefaults) {
  return bus satisfies ResolvedCommitbusOptions;
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  }
  return Object.freeze(value);
}
