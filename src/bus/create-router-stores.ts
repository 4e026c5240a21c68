import type { CommitbusConfig } from '../config/config.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { RouterStores } from '../router/router-stores.js';
import type { Logger } from '../support/logger.js';
import { MemoryBatchStore } from '../transports/memory/memory.batch-store.js';
import { MemoryDeadLetterStore } from '../transports/memory/memory.dead-letter-store.js';
import { MemoryRouterCatalog } from '../transports/memory/memory.router-catalog.js';
import { MemoryTokenStore } from '../transports/memory/memory.token-store.js';
import { connectionWarnings } from '../transports/redis/connection-warnings.js';
import { queueNames } from '../transports/redis/queue-names.js';
import { RedisBatchStore } from '../transports/redis/redis.batch-store.js';
import { RedisDeadLetterStore } from '../transports/redis/redis.dead-letter-store.js';
import { RedisRouterCatalog } from '../transports/redis/redis.router-catalog.js';
import { RedisTokenStore } from '../transports/redis/redis.token-store.js';
import { RedisConnections } from '../transports/redis/redis-connections.js';
import { isRedisOutage } from '../transports/redis/redis-outage.js';

/**
 * The router's stores for a bus's config: on Redis (`transport: 'bullmq'`)
 * under the bus's hash tag, so a router started with the same `prefix` and
 * `name` shares the bus's dead letters and sees what the bus routes to
 * topics; in memory otherwise (one process: tests, the demo). `shared`
 * hands in a bus's own dead-letter store.
 */
export function createRouterStores(
  config: Pick<CommitbusConfig, 'transport' | 'redisUrl' | 'redisCluster' | 'prefix' | 'name'>,
  logger: Logger,
  shared: { readonly deadLetters?: DeadLetterStore } = {},
): RouterStores {
  if (config.transport !== 'bullmq') {
    const catalog = new MemoryRouterCatalog();
    const batches = new MemoryBatchStore(catalog);
    return {
      tokens: new MemoryTokenStore(),
      topics: catalog,
      subscribers: catalog,
      batches,
      deadLetters: shared.deadLetters ?? new MemoryDeadLetterStore(),
      ping: async () => undefined,
      isUnavailable: () => false,
      close: async () => undefined,
    };
  }
  let where = () => 'Redis';
  const connections = new RedisConnections(
    config,
    connectionWarnings(logger, () => where()),
  );
  where = () => connections.describe();
  // Requests fail after a few reconnects, so the API answers 500 and /pulse tells, instead of hanging.
  const client = connections.open(3);
  const names = queueNames(config);
  const catalog = new RedisRouterCatalog(client, names);
  const batches = new RedisBatchStore(client, names);
  return {
    tokens: new RedisTokenStore(client, names),
    topics: catalog,
    subscribers: catalog,
    batches,
    deadLetters: shared.deadLetters ?? new RedisDeadLetterStore(client, names),
    ping: () => client.ping(),
    isUnavailable: isRedisOutage,
    close: async () => {
      await batches.close();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
