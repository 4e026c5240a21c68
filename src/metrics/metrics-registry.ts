/**
 * What the worker's `/metrics` server reads of a Prometheus registry: a
 * prom-client `Registry` fits (`createBusMetrics(bus).registry`, or one of
 * your own). Written here rather than named from prom-client so that the
 * package root, which takes it in `startWorker({ metrics: { registry } })`,
 * neither loads nor imports prom-client.
 */
export interface MetricsRegistry {
  /** Every metric in the Prometheus text format. */
  metrics(): Promise<string>;
  /** The `content-type` of that text. */
  readonly contentType: string;
}
