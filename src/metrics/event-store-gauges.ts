import type { Registry } from 'prom-client';
import { describeError, type Logger } from '../support/logger.js';
import { one, scrapeGauge, sharedScrapeRead } from './scrape-gauge.js';

/** What the event store gauges show of `store.status()`. */
export interface MetricsEventStoreStatus {
  /** The version the store's tables are at: the last handled event. */
  readonly version: number;
  /** Events queued and not handled yet. */
  readonly queued: number;
  /** The event the store is halted at, or null when it is not halted. */
  readonly halted: object | null;
  /** Whether this process is the store's writer now. */
  readonly writer: boolean;
}

/**
 * What {@link createBusMetrics} reads an event store through
 * (`BusMetricsOptions.eventStore`): an `EventStore` of `commitbus/event-store` is one.
 */
export interface MetricsEventStore {
  /** Where the store stands, read at each scrape. */
  status(): Promise<MetricsEventStoreStatus>;
}

/**
 * Registers the event store's gauges, read from `store.status()` at scrape
 * time (one read a scrape): `<prefix>event_store_version` (the last handled
 * version, so `rate()` of it is the store's throughput: versions have no
 * gaps), `<prefix>event_store_queued`, `<prefix>event_store_halted` (0/1),
 * `<prefix>event_store_writer` (1 in the process that is the writer: summed
 * over the processes, whether a writer is present) and
 * `<prefix>event_store_up` (0 when the last read failed; the others then keep their values).
 */
export function registerEventStoreGauges(
  registry: Registry,
  prefix: string,
  store: MetricsEventStore,
  logger: Logger,
): void {
  const read = sharedScrapeRead(
    () => store.status(),
    (error) =>
      logger.warn(
        { error: describeError(error).message },
        "the event store's status() failed during a metrics scrape; its gauges keep their last values",
      ),
  );
  const gauge = (name: string, help: string, pick: (s: MetricsEventStoreStatus) => number) =>
    scrapeGauge(registry, read, { name: `${prefix}event_store_${name}`, help }, (s) => one(pick(s)));
  gauge(
    'version',
    'The version the event store is at: the last handled event (versions have no gaps)',
    (s) => s.version,
  );
  gauge('queued', 'Events queued in the event store and not handled yet', (s) => s.queued);
  gauge('halted', 'Whether the event store is halted at a failing event (1) or not (0)', (s) =>
    s.halted === null ? 0 : 1,
  );
  gauge('writer', "Whether this process is the event store's writer now (1) or not (0)", (s) =>
    s.writer ? 1 : 0,
  );
  scrapeGauge(
    registry,
    async () => ({ up: (await read()) === undefined ? 0 : 1 }),
    {
      name: `${prefix}event_store_up`,
      help: "Whether the last scrape could read the event store's status (1) or not (0)",
    },
    (s) => one(s.up),
  );
}
