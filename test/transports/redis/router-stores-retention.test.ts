/**
 * A router with no bus opens a dead-letter store of its own: it keeps the
 * `deadLetters` limits as a bus's store does, so a dead webhook subscriber
 * cannot grow it without bound.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../src/config/resolve-options.js';
import { redisRouterStores } from '../../../src/transports/redis/redis-router-stores.js';
import { letter } from '../../conformance/dead-letter-store/letters.js';
import { recordingLogger } from '../../helpers/recording-logger.js';
import { deleteKeys, openRedis, redisConfig, testPrefix } from '../../helpers/redis.js';

const prefix = testPrefix('router-retention');
const redis = openRedis();

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await redis.quit();
});

describe('the router stores of a router with no bus', () => {
  it('keep at most deadLetters.maxCount letters, the newest, and count the drops', async () => {
    const config = resolveOptions({
      redis: { ...redisConfig(), prefix },
      name: 'alone',
      deadLetters: { maxCount: 2 },
    });
    const logger = recordingLogger();
    const stores = redisRouterStores(config, logger);
    try {
      await stores.deadLetters.add([letter('e1.h', 1), letter('e2.h', 2), letter('e3.h', 3)]);
      const counts = await stores.deadLetters.counts();
      expect(counts).toMatchObject({ total: 2, dropped: 1 });
      expect((await stores.deadLetters.list()).map((l) => l.id)).toEqual(['e2.h', 'e3.h']);
    } finally {
      await stores.close();
    }
  });
});
