/**
 * The adapters every conformance suite runs against: one line each. A new
 * transport passes by adding its line here. `wrapped` is a throwaway
 * adapter made outside `src` (the in-process one behind an object of its
 * own) to show that an adapter the package does not know passes too.
 */

import type { Transport } from '../../src/bus/transport.js';
import type { TransportAdapter } from '../../src/index.js';
import { memoryTransport } from '../../src/transports/memory/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { CLUSTER_NODES, ON_CLUSTER, REDIS_URL } from '../helpers/redis.js';

/** An adapter under test and whether it keeps data outside this process. */
export interface ConformanceAdapter {
  /** Named in the test titles. */
  readonly name: string;
  /** A fresh adapter value. */
  readonly adapter: () => TransportAdapter;
  /** Whether its transport provides the router's stores (`Transport.routerStores`, a capability an adapter may leave out). */
  readonly routerStores: boolean;
}

/**
 * The in-process adapter behind an object of another shape, with its core
 * ports only (no router stores): an adapter from outside `src`.
 */
export function wrappedMemoryTransport(): TransportAdapter {
  const inner = memoryTransport();
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
        publish: (events) => t.publish(events),
        releaseDue: (limit) => t.releaseDue(limit),
        startWorker: (runtime) => t.startWorker(runtime),
        workerOrdering: () => t.workerOrdering(),
        close: () => t.close(),
      };
    },
  };
}

/** On the cluster project, the Redis adapter runs on the cluster; the in-process ones run there too (they are quick). */
export const ADAPTERS: readonly ConformanceAdapter[] = [
  { name: 'memory', adapter: memoryTransport, routerStores: true },
  { name: 'wrapped memory', adapter: wrappedMemoryTransport, routerStores: false },
  ON_CLUSTER
    ? {
        name: 'redis cluster',
        adapter: () => redisTransport({ cluster: CLUSTER_NODES ?? [] }),
        routerStores: true,
      }
    : { name: 'redis', adapter: () => redisTransport({ url: REDIS_URL }), routerStores: true },
];
