import type { CommitbusConfig } from '../config/config.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { RouterStores } from '../router/router-stores.js';
import type { Logger } from '../support/logger.js';
import { memoryRouterStores } from '../transports/memory/memory-router-stores.js';
import { redisRouterStores } from '../transports/redis/redis-router-stores.js';

/**
 * The router's stores for a config, for a router without a bus
 * (`startRouter`): on Redis (`transport: 'bullmq'`) under the bus's hash
 * tag, in memory otherwise (one process: tests, the demo). A bus's own come
 * from its transport (`Transport.routerStores`, `bus.router`). `shared`
 * hands in a bus's own dead-letter store.
 */
export function createRouterStores(
  config: Pick<CommitbusConfig, 'transport' | 'redisUrl' | 'redisCluster' | 'prefix' | 'name'>,
  logger: Logger,
  shared: { readonly deadLetters?: DeadLetterStore } = {},
): RouterStores {
  return config.transport === 'bullmq'
    ? redisRouterStores(config, logger, shared)
    : memoryRouterStores(shared);
}
