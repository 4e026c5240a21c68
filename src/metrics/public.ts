/**
 * What the package root takes from the metrics room: what `startWorker({
 * metrics })` takes, returns and throws, and what `bus.history()` returns and
 * throws, none of which loads prom-client.
 * The metrics themselves (`createBusMetrics`, `BusMetrics`) are at
 * `commitbus/metrics`.
 */
export { HistoryQueryError } from './errors/history-query.error.js';
export { MetricsServerError } from './errors/metrics-server.error.js';
export type { HistoryPoint } from './history-store.js';
export type { MetricsRegistry } from './metrics-registry.js';
export type { MetricsAddress, MetricsServerOptions } from './metrics-server.js';
