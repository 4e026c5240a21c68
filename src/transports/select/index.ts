/**
 * `commitbus/transports`: the transport the environment names
 * ({@link transportFromEnv}). The adapters themselves are at
 * `commitbus/redis` and `commitbus/sql` (`commitbus/memory` keeps only the
 * deprecated `memoryTransport()`).
 * @module commitbus/transports
 */
export {
  type TransportFromEnv,
  type TransportFromEnvOptions,
  transportFromEnv,
} from './transport-from-env.js';
