export type {
  CommitbusOptions,
  FlatCommitbusOptions,
  ResolvedCommitbusOptions,
} from './commitbus-options.js';
export { DEFAULT_CONFIG, DEFAULTS } from './config.js';
export { ConfigError } from './errors/config.error.js';
export { loadConfigFromEnv } from './load-config-from-env.js';
export type {
  AuditOptions,
  DeadLetterOptions,
  DrainOptions,
  HandlerRunOptions,
  HistoryOptions,
  IdempotencyOptions,
  OrderingMode,
  OrderingOptions,
  OutboxOptions,
  PublishingOptions,
  RedisOptions,
  SchedulingOptions,
  WorkersOptions,
} from './option-groups.js';
export type { RedisClusterNode } from './redis-cluster-node.js';
export type { TransportSettings } from './transport-settings.js';
