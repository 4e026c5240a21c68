export type { CommitbusConfig, TransportKind } from './config.js';
export { DEFAULT_CONFIG } from './config.js';
export { ConfigError } from './config-error.js';
export { CONFIG_ENV_VARS, loadConfigFromEnv } from './load-config-from-env.js';
export { resolveConfig } from './resolve-config.js';
