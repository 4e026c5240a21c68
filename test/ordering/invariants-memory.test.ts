/**
 * The invariants of ordered lanes on `MemoryOrderingStore` (the TypeScript
 * copy of the Lua lanes), checked by the randomized model of
 * invariants-model.ts over seeded runs on a faked clock, so a seed replays
 * exactly. Rerun one with
 * `ORDERING_SEED=<seed> ORDERING_RUNS=1 npx vitest run test/ordering/invariants-memory.test.ts`.
 */
import { describe, it } from 'vitest';
import { memoryHarness } from './invariants-harness.js';
import { MODEL_TIMEOUT_MS } from './invariants-model.js';
import { runModels } from './invariants-run.js';

describe('MemoryOrderingStore: randomized model', () => {
  it(
    'keeps the invariants over random runs (the seed is in the failure)',
    () =>
      runModels({
        name: 'MemoryOrderingStore',
        harness: () => memoryHarness(true),
        fakeClock: true,
        file: 'test/ordering/invariants-memory.test.ts',
      }),
    MODEL_TIMEOUT_MS,
  );
});
