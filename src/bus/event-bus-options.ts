import type { DataSource } from 'typeorm';
import type { CommitbusOptions } from '../config/commitbus-options.js';
import type { ConcreteEventClass } from '../events/event.js';
import type { BusObserver } from '../handlers/bus-observer.js';
import type { DrainResult } from '../handlers/drain.js';
import type { EventHandlersConfig } from '../handlers/event-handlers-config.js';
import type { MetricsAddress, MetricsServerOptions } from '../metrics/metrics-server.js';
import type { Logger } from '../support/logger.js';
import type { TransportAdapter } from './transport.js';

/**
 * What `createEventBus` takes. Its hooks (`onPublished`, `onHandled`,
 * `onHandlerFailed`, `onRetry`, `onParked`, `onDeadLetter`; see
 * {@link BusObserver}) observe this process's publishing and handler runs.
 */
export interface EventBusOptions extends BusObserver {
  /** Every event class this bus may publish or handle. */
  events: Iterable<ConcreteEventClass>;
  /** `EVENT_HANDLERS`: handling key to ordered handler entries. Validated at construction. */
  handlers?: EventHandlersConfig;
  /**
   * Options, grouped by what they tune; anything left out takes its default
   * (see `DEFAULT_CONFIG`). Resolved options (another bus's `bus.config`,
   * what `loadConfigFromEnv` returns) are taken as they are; the deprecated
   * flat names still work, each warned about once.
   */
  config?: CommitbusOptions;
  /**
   * Where events wait and workers take them from: `redisTransport({ url })`
   * (`commitbus/redis`), `sqlTransport({ dataSource })` or
   * `sqliteTransport({ file })` (`commitbus/sql`), or an adapter of your
   * own; `transportFromEnv()` (`commitbus/transports`) picks one from
   * `COMMITBUS_TRANSPORT`, `REDIS_URL` and `REDIS_CLUSTER_NODES`. Its
   * settings win over `config`'s (`redis.url`, `redis.cluster`, `redis.prefix`).
   * @defaultValue `sqliteTransport()`: SQLite in this process's memory
   * (needs `better-sqlite3`); a `ConfigError` when `config` names a Redis
   */
  transport?: TransportAdapter;
  /**
   * Where commitbus logs (a pino logger fits).
   * @defaultValue pino: warnings and errors as JSON lines on stderr
   * (`COMMITBUS_LOG_LEVEL` for another level), a line repeated per event
   * thinned out
   */
  logger?: Logger;
  /**
   * The TypeORM DataSource your units of work run on. With it (and
   * `outbox.enabled`, on by default) events are kept in its `commitbus_outbox`
   * table in the same transaction, and this process relays any a crashed
   * publisher left; on the DataSource of the bus's SQL transport the event
   * rows themselves are written in the transaction instead, with no outbox
   * row. Add `COMMITBUS_ENTITIES` to its entities.
   */
  dataSource?: DataSource;
}

/** Options of `EventBus.startWorker`. */
export interface StartWorkerOptions {
  /**
   * On SIGINT/SIGTERM: stop taking work, finish in-flight work (up to
   * `shutdownTimeoutMs`), close the bus.
   * @defaultValue `true`
   */
  handleSignals?: boolean;
  /** Called after each drain job with what it did. */
  onDrain?: (result: DrainResult) => void;
  /**
   * Serve the bus's Prometheus metrics (see README's "Metrics and hooks") at
   * `GET /metrics` on this port, until the worker closes, beside the probes
   * `GET /healthz` and `GET /readyz` (README's "Workers").
   * @defaultValue not served
   */
  metrics?: MetricsServerOptions;
}

/** A worker running in this process. */
export interface RunningWorker {
  /** Stops taking work and waits for in-flight work (up to `shutdownTimeoutMs`). */
  close(): Promise<void>;
  /** Resolves once the worker has closed by `close()`, or, after SIGINT/SIGTERM, once the whole bus has closed. */
  readonly stopped: Promise<void>;
  /** Where the worker serves its metrics, when started with `metrics`. */
  readonly metrics?: MetricsAddress;
}
