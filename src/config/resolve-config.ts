import { backoffProblem } from '../handlers/backoff.js';
import { type CommitbusConfig, DEFAULT_CONFIG } from './config.js';
import { ConfigError } from './config-error.js';

const POSITIVE_INTEGERS = [
  'maxEvents',
  'ttlMs',
  'batchSize',
  'blockMs',
  'maxConcurrentDrains',
  'claimStaleAfterMs',
  'asyncConcurrency',
  'defaultAttempts',
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
  if (config.transport === 'bullmq' && !/^rediss?:\/\//.test(config.redisUrl)) {
    throw new ConfigError(
      `redisUrl must start with redis:// or rediss://, got ${JSON.stringify(config.redisUrl)}`,
    );
  }
  if (!/^[A-Za-z0-9_.-]+$/.test(config.prefix) || !/^[A-Za-z0-9_.-]+$/.test(config.name)) {
    throw new ConfigError(
      `prefix and name may only contain letters, digits, "_", "." and "-" (got prefix ${JSON.stringify(config.prefix)}, name ${JSON.stringify(config.name)})`,
    );
  }
  return config;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
