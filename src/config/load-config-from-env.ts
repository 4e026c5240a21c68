import type { CommitbusConfig, TransportKind } from './config.js';
import { ConfigError } from './errors/config.error.js';
import { resolveConfig } from './resolve-config.js';

/** Environment variable read for each option. */
export const CONFIG_ENV_VARS = {
  transport: 'COMMITBUS_TRANSPORT',
  redisUrl: 'REDIS_URL',
  redisCluster: 'REDIS_CLUSTER_NODES',
  prefix: 'COMMITBUS_PREFIX',
  name: 'COMMITBUS_NAME',
  maxEvents: 'COMMITBUS_MAX_EVENTS',
  ttlMs: 'COMMITBUS_TTL_MS',
  batchSize: 'COMMITBUS_BATCH_SIZE',
  blockMs: 'COMMITBUS_BLOCK_MS',
  maxConcurrentDrains: 'COMMITBUS_MAX_CONCURRENT_DRAINS',
  scheduleEveryMs: 'COMMITBUS_SCHEDULE_EVERY_MS',
  claimStaleAfterMs: 'COMMITBUS_CLAIM_STALE_AFTER_MS',
  asyncConcurrency: 'COMMITBUS_ASYNC_CONCURRENCY',
  defaultAttempts: 'COMMITBUS_DEFAULT_ATTEMPTS',
  maxDeliveries: 'COMMITBUS_MAX_DELIVERIES',
  handlerTimeoutMs: 'COMMITBUS_HANDLER_TIMEOUT_MS',
  publishAttempts: 'COMMITBUS_PUBLISH_ATTEMPTS',
  publishBackoffMs: 'COMMITBUS_PUBLISH_BACKOFF_MS',
  shutdownTimeoutMs: 'COMMITBUS_SHUTDOWN_TIMEOUT_MS',
  outbox: 'COMMITBUS_OUTBOX',
  outboxGraceMs: 'COMMITBUS_OUTBOX_GRACE_MS',
  outboxRelayEveryMs: 'COMMITBUS_OUTBOX_RELAY_EVERY_MS',
  outboxRelayBatchSize: 'COMMITBUS_OUTBOX_RELAY_BATCH_SIZE',
  dedupeWindowMs: 'COMMITBUS_DEDUPE_WINDOW_MS',
  maxEventBytes: 'COMMITBUS_MAX_EVENT_BYTES',
  delayedPollMs: 'COMMITBUS_DELAYED_POLL_MS',
  orderedConcurrency: 'COMMITBUS_ORDERED_CONCURRENCY',
  ordering: 'COMMITBUS_ORDERING',
  handledRetentionMs: 'COMMITBUS_HANDLED_RETENTION_MS',
  lockDurationMs: 'COMMITBUS_LOCK_DURATION_MS',
  rulesRefreshMs: 'COMMITBUS_RULES_REFRESH_MS',
} as const satisfies Partial<Record<keyof CommitbusConfig, string>>;

/**
 * Reads the options named in {@link CONFIG_ENV_VARS} from the environment, on
 * top of `overrides` and the defaults. `REDIS_CLUSTER_NODES` lists cluster
 * nodes separated by commas. When `REDIS_URL` or `REDIS_CLUSTER_NODES` is set
 * and `COMMITBUS_TRANSPORT` is not, the transport is `bullmq`.
 */
export function loadConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<CommitbusConfig> = {},
): CommitbusConfig {
  const fromEnv: Partial<Record<keyof CommitbusConfig, unknown>> = {};
  for (const [key, variable] of Object.entries(CONFIG_ENV_VARS) as [keyof typeof CONFIG_ENV_VARS, string][]) {
    const raw = env[variable]?.trim();
    if (raw === undefined || raw === '') continue;
    if (
      key === 'transport' ||
      key === 'redisUrl' ||
      key === 'prefix' ||
      key === 'name' ||
      key === 'ordering'
    ) {
      fromEnv[key] = raw;
    } else if (key === 'redisCluster') {
      fromEnv[key] = raw.split(/[\s,]+/).filter((node) => node !== '');
    } else if (key === 'outbox') {
      if (raw !== 'true' && raw !== 'false') {
        throw new ConfigError(`${variable} must be "true" or "false", got ${JSON.stringify(raw)}`);
      }
      fromEnv[key] = raw === 'true';
    } else {
      const value = Number(raw);
      if (!Number.isInteger(value) || value < 0) {
        throw new ConfigError(`${variable} must be a whole number >= 0, got ${JSON.stringify(raw)}`);
      }
      fromEnv[key] = value;
    }
  }
  if (
    fromEnv.transport === undefined &&
    (fromEnv.redisUrl !== undefined || fromEnv.redisCluster !== undefined)
  ) {
    fromEnv.transport = 'bullmq' satisfies TransportKind;
  }
  return resolveConfig({ ...(fromEnv as Partial<CommitbusConfig>), ...overrides });
}
