import { inspect } from 'node:util';
import type { RedisOptions } from './option-groups.js';
import { redactRedisUrl } from './redis-url.js';

/**
 * `redis` (a bus's resolved `redis` options), which `console.log(bus.config)`
 * and `util.inspect` now show with its URL's and URL nodes' credentials
 * masked, and an ioredis Cluster by name only. What code reads of it is
 * unchanged: the mask is a non-enumerable symbol, which JSON, spreads and
 * `Object.keys` do not see.
 */
export function maskedOnInspect<T extends RedisOptions>(redis: T): T {
  Object.defineProperty(redis, inspect.custom, {
    enumerable: false,
    value: (_depth: number, options: object, show: typeof inspect = inspect) =>
      show(
        {
          ...redis,
          url: typeof redis.url === 'string' ? redactRedisUrl(redis.url) : redis.url,
          cluster: maskedCluster(redis.cluster),
        },
        options,
      ),
  });
  return redis;
}

function maskedCluster(cluster: RedisOptions['cluster']): unknown {
  if (cluster === undefined) return undefined;
  if (!Array.isArray(cluster)) return '[ioredis Cluster]';
  return cluster.map((node) => (typeof node === 'string' ? redactRedisUrl(node) : node));
}
