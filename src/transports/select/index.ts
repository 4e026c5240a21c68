/**
 * `commitbus/transports`: the transport the environment names
 * ({@link transportFromEnv}). The adapters themselves are at
 * `commitbus/redis` and `commitbus/memory`.
 * @module commitbus/transports
 */
export { transportFromEnv } from './transport-from-env.js';
