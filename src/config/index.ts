export type { CommitbusConfig, OrderingMode, TransportKind } from './config.js';
export { DEFAULT_CONFIG } from './config.js';
export { ConfigError } from './errors/config.error.js';
export { loadConfigFromEnv } from './load-config-from-env.js';
export type { RedisClusterNode } from './redis-cluster-node.js';
