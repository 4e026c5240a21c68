/**
 * The invariants of ordered lanes on `RedisOrderingStore`, checked by the
 * randomized model of invariants-model.ts over seeded runs, the time real (a
 * seed replays its operations, the timing may differ). Rerun one seed with
 * `ORDERING_SEED=<seed> ORDERING_RUNS=1 npx vitest run test/ordering/invariants-redis.test.ts`.
 */
import { describe, it } from 'vitest';
import { redisHarnesses } from './invariants-harness.js';
import { MODEL_TIMEOUT_MS } from './invariants-model.js';
import { runModels } from './invariants-run.js';

const harness = redisHarnesses('ordering-invariants-redis');

describe('RedisOrderingStore: randomized model', () => {
  it(
    'keeps the invariants over random runs (the seed is in the failure)',
    () =>
      runModels({
        name: 'RedisOrderingStore',
        harness,
        file: 'test/ordering/invariants-redis.test.ts',
      }),
    MODEL_TIMEOUT_MS,
  );
});
