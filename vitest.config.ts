import { defineConfig } from 'vitest/config';

/** The cluster `.ci/redis-cluster` starts when `REDIS_CLUSTER_NODES` is not given. */
const LOCAL_CLUSTER = '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002';

/**
 * The Redis suites that matter, run a second time on a Redis Cluster: publish
 * and drain, async jobs and retries, dead letters, pause/block, ordering (and
 * its invariants), the outbox relay, a crash test, handlers that kill their
 * worker (deliveries counted), the router's stores, delivery and bus route,
 * and the cluster's own.
 */
const ON_CLUSTER_TOO = [
  'test/conformance/**/*.test.ts',
  'test/transports/redis/bullmq-dispatch.test.ts',
  'test/transports/redis/bullmq-drains.test.ts',
  'test/handlers/retries-and-timeouts.test.ts',
  'test/dead-letters/dead-letters.test.ts',
  'test/scheduling/rules.test.ts',
  'test/ordering/ordering.test.ts',
  'test/ordering/invariants.test.ts',
  'test/ordering/rebase.test.ts',
  'test/outbox/outbox.test.ts',
  'test/outbox/delivery.test.ts',
  'test/chaos/crash.test.ts',
  'test/handlers/pipeline.test.ts',
  'test/handlers/crash-deliveries.test.ts',
  'test/transports/redis/poison-input.test.ts',
  'test/transports/redis/redis-cluster.test.ts',
  'test/router/delivery.test.ts',
  'test/router/wiring.test.ts',
];

/** Runs only under `npm run test:chaos` (ES_ATTACK_PROCS=1). */
const SOAK_ONLY = 'test/event-store/attack-processes.test.ts';

export default defineConfig({
  test: {
    // Files share one Redis and one PostgreSQL; each uses its own prefix and
    // schema, but running them one at a time keeps timings honest on 2 cores.
    fileParallelism: false,
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
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'redis-cluster',
          include: ON_CLUSTER_TOO,
          env: {
            REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES ?? LOCAL_CLUSTER,
            // A smaller crash test: the one on a single Redis is the long one.
            CHAOS_EVENTS: process.env.CHAOS_EVENTS ?? '200',
          },
        },
      },
    ],
  },
});
