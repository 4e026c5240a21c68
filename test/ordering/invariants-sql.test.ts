/**
 * The invariants of ordered lanes on `SqlOrderingStore`, on PostgreSQL and on
 * SQLite, checked by the randomized model of invariants-model.ts over seeded
 * runs, the time real (a seed replays its operations, the timing may
 * differ). On PostgreSQL every call is a few round trips, so its runs are
 * smaller by default (2 of 40 operations); `ORDERING_RUNS` and
 * `ORDERING_OPS` set both databases' sizes for longer explorations. Rerun
 * one seed with
 * `ORDERING_SEED=<seed> ORDERING_RUNS=1 npx vitest run test/ordering/invariants-sql.test.ts`.
 */
import { describe, it } from 'vitest';
import { sqlHarnesses } from './invariants-harness.js';
import { OPS, RUNS, sizeOr } from './invariants-model.js';
import { runModels } from './invariants-run.js';

const harness = sqlHarnesses();

const SIZES = {
  postgres: { runs: sizeOr('RUNS', RUNS, 2), ops: sizeOr('OPS', OPS, 40) },
  sqlite: { runs: RUNS, ops: OPS },
};

describe.each(['postgres', 'sqlite'] as const)('SqlOrderingStore on %s: randomized model', (which) => {
  const { runs, ops } = SIZES[which];
  it(
    'keeps the invariants over random runs (the seed is in the failure)',
    () =>
      runModels({
        name: `SqlOrderingStore (${which})`,
        harness: () => harness(which),
        file: 'test/ordering/invariants-sql.test.ts',
        runs,
        ops,
      }),
    60_000 + runs * ops * 100,
  );
});
