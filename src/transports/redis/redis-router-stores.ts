import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import { deadLetterRetention } from '../../dead-letters/dropped-letters-log.js';
import type { RouterStores } from '../../router/router-stores.js';
import type { Logger } from '../../support/logger.js';
import { connectionWarnings } from './connection-warnings.js';
import { queueNamesOf } from './queue-names.js';
import { RedisBatchStore } from './redis.batch-store.js';
import { RedisDeadLetterStore } from './redis.dead-letter-store.js';
import { RedisDeliveryAttemptLog } from './redis.delivery-attempt-log.js';
import { RedisRouterCatalog } from './redis.router-catalog.js';
import { RedisTokenStore } from './redis.token-store.js';
import { RedisConnections } from './redis-connections.js';
import { isRedisOutage } from './redis-outage.js';

/**
 * The router's stores on Redis, under the bus's hash tag (`prefix`, `name`),
 * on a connection of their own: a router started with the bus's `prefix`
 * and `name` shares its dead letters and sees what it routes to topics.
 * Requests fail after a few reconnects, so the API answers 500 and `/pulse`
 * tells, instead of hanging. `shared.deadLetters` hands in a bus's own
 * dead-letter store; without one (a router with no bus) its own store keeps
 * the `deadLetters` limits (`maxCount`, `maxAgeMs`) as a bus's does.
 */
export function redisRouterStores(
  config: Pick<ResolvedCommitbusOptions, 'redis' | 'name' | 'deadLetters'>,
  logger: Logger,
  shared: { readonly deadLetters?: DeadLetterStore } = {},
): RouterStores {
  let where = () => 'Redis';
  const connections = new RedisConnections(
    config.redis,
    connectionWarnings(logger, () => where()),
  );
  where = () => connections.describe();
  const client = connections.open(3);
  const names = queueNamesOf(config);
  const catalog = new RedisRouterCatalog(client, names);
  const batches = new RedisBatchStore(client, names);
  return {
    tokens: new RedisTokenStore(client, names),
    topics: catalog,
    subscribers: catalog,
    batches,
    attempts: new RedisDeliveryAttemptLog(client, names.tag),
    deadLetters:
      shared.deadLetters ??
      new RedisDeadLetterStore(client, names, undefined, deadLetterRetention(config.deadLetters, logger)),
    ping: () => client.ping(),
    isUnavailable: isRedisOutage,
    close: async () => {
      await batches.close();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
