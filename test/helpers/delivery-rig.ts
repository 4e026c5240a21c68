import { deliverySettings } from '../../src/router/delivery/delivery-settings.js';
import { DeliveryWorker } from '../../src/router/delivery/delivery-worker.js';
import { WebhookSender } from '../../src/router/delivery/webhook-sender.js';
import { RouterMetrics } from '../../src/router/router-metrics.js';
import { RouterUpkeep } from '../../src/router/upkeep/router-upkeep.js';
import { upkeepSettings } from '../../src/router/upkeep/upkeep-settings.js';
import type { Logger } from '../../src/support/logger.js';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { RedisBatchStore } from '../../src/transports/redis/redis.batch-store.js';
import { RedisDeadLetterStore } from '../../src/transports/redis/redis.dead-letter-store.js';
import { RedisDeliveryAttemptLog } from '../../src/transports/redis/redis.delivery-attempt-log.js';
import { RedisRouterCatalog } from '../../src/transports/redis/redis.router-catalog.js';
import { deleteKeys, openRedis } from './redis.js';
import type { RouterRig } from './router-rig.js';
import { testCertificate } from './tls.js';

// Delivery workers and upkeep over router stores, with short timeouts and backoff, for the delivery tests.
// The router's stores exist on Redis only (as Routemaster's), so every rig is Redis: the one Redis, or the
// cluster on the cluster project (`openRedis`).

/** Connect timeout of the test routers' sender, ms. */
export const CONNECT_MS = 200;
/** Request timeout of the test routers' sender, ms. */
export const REQUEST_MS = 300;

/** Router stores on Redis under `prefix`; `close()` deletes every key under it. */
export async function redisRig(prefix: string): Promise<RouterRig> {
  const NAMES = queueNames({ prefix, name: 'router' });
  const redis = openRedis();
  const batches = new RedisBatchStore(redis, NAMES);
  return {
    kind: 'redis',
    batches,
    subscribers: new RedisRouterCatalog(redis, NAMES),
    topics: new RedisRouterCatalog(redis, NAMES),
    deadLetters: new RedisDeadLetterStore(redis, NAMES),
    attempts: new RedisDeliveryAttemptLog(redis, NAMES.tag),
    close: async () => {
      await deleteKeys(redis, prefix);
      await batches.close();
      await redis.quit();
    },
  };
}

/** The kinds of stores the delivery tests run on, for `describe.each`: Redis (a cluster on the cluster project). */
export function rigs(prefix: string): [string, () => Promise<RouterRig>][] {
  return [['redis', () => redisRig(prefix)]];
}

/** A worker, upkeep and metrics over `rig`, with short timeouts and backoff. */
export async function startTestRouter(
  rig: RouterRig,
  options: {
    maxAttempts?: number;
    floorMs?: number;
    maxInFlightPerSubscriber?: number;
    logger?: Logger;
  } = {},
) {
  const { cert } = await testCertificate();
  const metrics = new RouterMetrics().watchQueues(rig.batches);
  const sender = new WebhookSender({ ca: cert, connectTimeoutMs: CONNECT_MS, requestTimeoutMs: REQUEST_MS });
  const settings = deliverySettings(
    {
      concurrency: 8,
      leaseMs: 1_000,
      idleWaitMs: 50,
      maxAttempts: options.maxAttempts ?? 25,
      maxInFlightPerSubscriber: options.maxInFlightPerSubscriber ?? 4,
      backoff: { baseMs: 100, floorMs: options.floorMs ?? 20, maxMs: 1_000 },
    },
    CONNECT_MS + REQUEST_MS,
  );
  const worker = new DeliveryWorker({
    batches: rig.batches,
    subscribers: rig.subscribers,
    deadLetters: rig.deadLetters,
    attempts: rig.attempts,
    sender,
    settings,
    metrics,
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  }).start();
  const upkeep = new RouterUpkeep({
    batches: rig.batches,
    settings: upkeepSettings({ promoteEveryMs: 10, recoverEveryMs: 100, autodropHighBytes: 0 }),
    metrics,
  }).start();
  return {
    worker,
    metrics,
    close: async () => {
      await worker.close();
      await upkeep.close();
      await sender.close();
    },
  };
}

/** The `data.n` of delivered events. */
export const numbers = (events: unknown[]) => events.map((e) => (e as { data: { n: number } }).data.n);
