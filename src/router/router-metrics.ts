import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BatchStore } from './batch-store.js';
import type { SubscriberQueueStats } from './subscriber.js';

/** Where queue figures come from on each scrape. */
type QueueStatsSource = Pick<BatchStore, 'stats'>;

type QueueStats = Record<string, SubscriberQueueStats>;

/**
 * The router's Prometheus metrics, in a registry of their own (serve
 * `registry.metrics()` at `/metrics`). Counters are bumped by the API
 * ({@link RouterMetrics.onPublished}), the delivery workers and the upkeep;
 * queue depth, oldest age and health per subscriber are read from the
 * batch store on each scrape.
 */
export class RouterMetrics {
  /** The registry holding every router metric. */
  readonly registry = new Registry();
  /** Events accepted by `POST /topics/:name`, per topic. */
  readonly published: Counter<'topic'>;
  /** Events delivered with a 2xx, per subscriber. */
  readonly delivered: Counter<'subscriber'>;
  /** Failed deliveries (batches), per subscriber. */
  readonly failed: Counter<'subscriber'>;
  /** Events dropped by the autodrop, per subscriber. */
  readonly dropped: Counter<'subscriber'>;
  /** Events given up as dead letters, per subscriber. */
  readonly deadLettered: Counter<'subscriber'>;
  /** Publish (batch made) to 2xx, seconds. */
  readonly deliveryLatency: Histogram;
  /** One delivery request, seconds, by outcome. */
  readonly requestDuration: Histogram<'outcome'>;
  private source: QueueStatsSource | undefined;

  constructor() {
    const registers = [this.registry];
    this.published = new Counter({
      name: 'commitbus_router_events_published_total',
      help: 'Events published to a topic',
      labelNames: ['topic'],
      registers,
    });
    this.delivered = new Counter({
      name: 'commitbus_router_events_delivered_total',
      help: 'Events delivered with a 2xx answer',
      labelNames: ['subscriber'],
      registers,
    });
    this.failed = new Counter({
      name: 'commitbus_router_deliveries_failed_total',
      help: 'Batch deliveries that failed (non-2xx, timeout, connection error)',
      labelNames: ['subscriber'],
      registers,
    });
    this.dropped = new Counter({
      name: 'commitbus_router_events_dropped_total',
      help: 'Events dropped by the autodrop to free memory',
      labelNames: ['subscriber'],
      registers,
    });
    this.deadLettered = new Counter({
      name: 'commitbus_router_events_dead_lettered_total',
      help: 'Events given up and kept as dead letters',
      labelNames: ['subscriber'],
      registers,
    });
    this.deliveryLatency = new Histogram({
      name: 'commitbus_router_delivery_latency_seconds',
      help: 'From the batch being made (its first event queued) to its 2xx',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'commitbus_router_delivery_request_seconds',
      help: 'Duration of one delivery request',
      labelNames: ['outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
      registers,
    });
    this.queueGauge('commitbus_router_queue_events', 'Events waiting per subscriber', (s) => s.queued);
    this.queueGauge('commitbus_router_queue_batches', 'Batches waiting per subscriber', (s) => s.batches);
    this.queueGauge('commitbus_router_queue_oldest_seconds', 'Age of the oldest waiting event', (s, now) =>
      s.oldest === null ? 0 : Math.max(0, (now - s.oldest) / 1000),
    );
    this.queueGauge('commitbus_router_subscriber_health', 'Health points 0..100', (s) => s.health);
  }

  /** Reads queue figures from `source` on each scrape. */
  watchQueues(source: QueueStatsSource): this {
    this.source = source;
    return this;
  }

  /** The hook the HTTP API calls after queuing `count` events on `topic`. */
  onPublished(topic: string, count: number): void {
    this.published.inc({ topic }, count);
  }

  /** The text exposition of every metric, for `/metrics`. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  private cached: { at: number; stats: Promise<QueueStats> } | undefined;

  private queueGauge(
    name: string,
    help: string,
    pick: (stats: SubscriberQueueStats, now: number) => number,
  ): void {
    const gauge: Gauge<'subscriber'> = new Gauge({
      name,
      help,
      labelNames: ['subscriber'],
      registers: [this.registry],
      collect: async () => {
        const stats = await this.queueStats();
        const now = Date.now();
        gauge.reset();
        for (const [subscriber, s] of Object.entries(stats)) gauge.set({ subscriber }, pick(s, now));
      },
    });
  }

  // One stats() call serves the four gauges of one scrape.
  private queueStats(): Promise<QueueStats> {
    if (this.source === undefined) return Promise.resolve({});
    const now = Date.now();
    if (this.cached === undefined || now - this.cached.at > 250) {
      this.cached = { at: now, stats: this.source.stats() };
    }
    return this.cached.stats;
  }
}
