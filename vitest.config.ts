import { defineConfig } from 'vitest/config';

/** The cluster `.ci/redis-cluster` starts when `REDIS_CLUSTER_NODES` is not given. */
const LOCAL_CLUSTER = '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002';

/**
 * What the redis-cluster project runs: every conformance suite (the Redis
 * adapter in the list is on the cluster there), the cluster's own tests, and
 * the store suites not yet in test/conformance whose Lua scripts build keys
 * while they run (from a prefix carrying the bus's hash tag): the ordering
 * store's invariants, the scheduling rules, handler job retries; and scheduled
 * events end to end (one tick store on the cluster for two buses). The other
 * suites drive the same adapters and run once, on one Redis.
 */
const ON_CLUSTER_TOO = [
  'test/conformance/**/*.test.ts',
  'test/transports/redis/redis-cluster.test.ts',
  'test/ordering/invariants-redis.test.ts',
  'test/scheduling/rules-pause.test.ts',
  'test/scheduling/rules-block.test.ts',
  'test/scheduling/rules-processes.test.ts',
  'test/scheduling/rules-targets.test.ts',
  'test/scheduling/schedules.test.ts',
  'test/handlers/retries-and-timeouts.test.ts',
];

/** Runs only under `npm run test:chaos` (ES_ATTACK_PROCS=1). */
const SOAK_ONLY = 'test/event-store/attack-processes.test.ts';

/** Runs only under `npm run test:chaos` (SQLITE_LOCK_ATTACKS=1): each held lock freezes its process for SQLite's busy timeout. */
const LOCKS_ONLY = 'test/chaos/sqlite-locks.test.ts';

export default defineConfig({
  test: {
    // Files share one Redis and one PostgreSQL, each under its own prefix and
    // schema: two at a time on a 2-core machine. No test may depend on the
    // machine being idle (conditions, not clocks), so a neighbour's load is
    // only slower, never red.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    setupFiles: ['reflect-metadata'],
    // Starts Redis, the local Redis Cluster and PostgreSQL when installed but stopped (.ci/services).
    globalSetup: ['./test/helpers/services.global-setup.ts'],
    reporters: ['default', './test/helpers/summary-line.reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'redis',
          include: ['test/**/*.test.ts'],
          // Needs a cluster: runs in the project below. The event store's process
          // attacks (a frozen writer, 150 dispatch loops, kills in 500-event
          // batches) take half a minute: `npm run test:chaos` runs them.
          exclude: [
            'test/transports/redis/redis-cluster.test.ts',
            ...(process.env.ES_ATTACK_PROCS === '1' ? [] : [SOAK_ONLY]),
            ...(process.env.SQLITE_LOCK_ATTACKS === '1' ? [] : [LOCKS_ONLY]),
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'redis-cluster',
          include: ON_CLUSTER_TOO,
          env: { REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES ?? LOCAL_CLUSTER },
        },
      },
    ],
  },
});
