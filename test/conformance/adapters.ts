/**
 * The adapters every conformance suite runs against: one line each. A new
 * transport passes by adding its line here. `wrapped` is a throwaway
 * adapter made outside `src` (the embedded one, SQLite in memory, behind an
 * object of its own) to show that an adapter the package does not know passes too.
 */

import type { Transport } from '../../src/bus/transport.js';
import type { TransportAdapter } from '../../src/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { sqliteTransport, sqlTransport } from '../../src/transports/sql/index.js';
import { CLUSTER_NODES, ON_CLUSTER, REDIS_URL } from '../helpers/redis.js';
import { sqlTestDatabases } from '../helpers/sql.js';

/** An adapter under test and whether it keeps data outside this process. */
export interface ConformanceAdapter {
  /** Named in the test titles. */
  readonly name: string;
  /** A fresh adapter value. */
  readonly adapter: () => TransportAdapter;
  /** Whether its transport provides the router's stores (`Transport.routerStores`, a capability an adapter may leave out). */
  readonly routerStores: boolean;
  /**
   * The ports its transport provides so far, while an adapter is being
   * built port by port (the SQL adapter); absent: every port.
   */
  readonly ports?: readonly ConformancePort[];
}

/** The ports a conformance suite covers, one suite each. */
export type ConformancePort =
  | 'log'
  | 'jobs'
  | 'rules'
  | 'deadLetters'
  | 'ordering'
  | 'ticks'
  | 'workers'
  | 'history'
  | 'audit';

/** The adapters whose transport provides `port`, for a suite's `describe.each`. */
export function adaptersFor(port: ConformancePort): readonly ConformanceAdapter[] {
  return ADAPTERS.filter((adapter) => adapter.ports === undefined || adapter.ports.includes(port));
}

/**
 * The embedded adapter (`sqliteTransport()`, SQLite in this process's
 * memory) behind an object of another shape, with its core ports only (no
 * router stores): an adapter from outside `src`.
 */
export function wrappedTransport(): TransportAdapter {
  const inner = sqliteTransport({ pollMs: 50 });
  return {
    name: 'wrapped',
    open: (context): Transport => {
      const t = inner.open(context);
      return {
        name: 'wrapped',
        log: t.log,
        jobs: t.jobs,
        rules: t.rules,
        deadLetters: t.deadLetters,
        ordering: t.ordering,
        ticks: t.ticks,
        workers: t.workers,
        history: t.history,
        audit: t.audit,
        publish: (events) => t.publish(events),
        releaseDue: (limit) => t.releaseDue(limit),
        startWorker: (runtime) => t.startWorker(runtime),
        workerOrdering: () => t.workerOrdering(),
        close: () => t.close(),
      };
    },
  };
}

/**
 * The SQL adapter on PostgreSQL and on SQLite (in memory), polling every 50 ms;
 * not on the cluster project, which runs the suites for the cluster's sake.
 */
function sqlAdapters(): ConformanceAdapter[] {
  if (ON_CLUSTER) return [];
  const databases = sqlTestDatabases();
  const ports: ConformancePort[] = [
    'log',
    'jobs',
    'deadLetters',
    'rules',
    'ordering',
    'ticks',
    'workers',
    'history',
    'audit',
  ];
  return [
    {
      name: 'sql postgres',
      adapter: () => sqlTransport({ dataSource: databases.postgres, pollMs: 50 }),
      routerStores: false,
      ports,
    },
    {
      name: 'sql sqlite',
      adapter: () => sqlTransport({ dataSource: databases.sqlite, pollMs: 50 }),
      routerStores: false,
      ports,
    },
  ];
}

/** On the cluster project, the Redis adapter runs on the cluster; the wrapped one runs there too (it is quick). */
export const ADAPTERS: readonly ConformanceAdapter[] = [
  { name: 'wrapped', adapter: wrappedTransport, routerStores: false },
  ON_CLUSTER
    ? {
        name: 'redis cluster',
        adapter: () => redisTransport({ cluster: CLUSTER_NODES ?? [] }),
        routerStores: true,
      }
    : { name: 'redis', adapter: () => redisTransport({ url: REDIS_URL }), routerStores: true },
  ...sqlAdapters(),
];
