/**
 * `commitbus/metrics`: a bus's Prometheus metrics (prom-client), apart from
 * the package root so that a service that serves none never loads them.
 * @module commitbus/metrics
 */
export { BusMetrics, type BusMetricsOptions, createBusMetrics } from './bus-metrics.js';
export { MetricsServerError } from './errors/metrics-server.error.js';
export type { MetricsEventStore, MetricsEventStoreStatus } from './event-store-gauges.js';
export type { MetricsRegistry } from './metrics-registry.js';
export type { MetricsAddress, MetricsServerOptions } from './metrics-server.js';
export type { MetricsSource, MetricsStatus } from './metrics-source.js';
