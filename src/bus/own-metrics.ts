import type { MetricsRegistry } from '../metrics/metrics-registry.js';
import type { MetricsSource } from '../metrics/metrics-source.js';

/**
 * The registry of a bus's own Prometheus metrics, which a worker started
 * with `metrics` and no `registry` serves: built by the first such worker
 * (`commitbus/metrics`' `createBusMetrics`, loaded then, so a bus that
 * serves no metrics never loads prom-client) and shared by the later ones.
 */
export function ownMetricsOf(bus: MetricsSource): () => Promise<MetricsRegistry> {
  let own: Promise<MetricsRegistry> | undefined;
  return () => {
    if (own !== undefined) return own;
    const building = import('../metrics/bus-metrics.js').then(
      ({ createBusMetrics }) => createBusMetrics(bus).registry,
    );
    own = building;
    // A load that failed is not kept: the next worker started with metrics tries again.
    building.catch(() => {
      if (own === building) own = undefined;
    });
    return building;
  };
}
