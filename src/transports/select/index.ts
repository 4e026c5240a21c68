/**
 * `commitbus/transports`: the transport the environment names
 * ({@link transportFromEnv}). The adapters themselves are at
 * `commitbus/redis`, `commitbus/memory` and `commitbus/sql`.
 * @module commitbus/transports
 */
export {
  type TransportFromEnv,
  type TransportFromEnvOptions,
  transportFromEnv,
} from './transport-from-env.js';
