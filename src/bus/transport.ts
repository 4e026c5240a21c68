import type { Queue } from 'bullmq';
import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import type { TransportSettings } from '../config/transport-settings.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { EventPublisher } from '../events/event-publisher.js';
import type { TransactionalPublisher } from '../events/transactional-publisher.js';
import type { EventLog } from '../handlers/event-log.js';
import type { HandlerJobQueue } from '../handlers/handler-job-queue.js';
import type { WorkerHost } from '../handlers/worker-host.js';
import type { WorkerRegistry } from '../handlers/worker-registry.js';
import type { HistoryStore } from '../metrics/history-store.js';
import type { OrderingStore } from '../ordering/ordering-store.js';
import type { WorkerOrderingSource } from '../ordering/worker-ordering.js';
import type { RouterStores } from '../router/router-stores.js';
import type { ScheduleTickStore } from '../scheduling/schedule-tick-store.js';
import type { SchedulingRuleStore } from '../scheduling/scheduling-rule-store.js';
import type { Closable } from '../support/closable.js';
import type { Logger } from '../support/logger.js';
import type { OperatorActionLog } from '../support/operator-action-log.js';

/**
 * Which ports an adapter provides (`commitbus/redis`, `commitbus/sql`);
 * the bus wires them. Every member is a port owned by a room below; adapters
 * implement them structurally and never import the bus (see ARCHITECTURE.md).
 */
export interface Transport extends EventPublisher, WorkerHost, WorkerOrderingSource, Closable {
  /** The adapter's name (`redis`, `sql-sqlite`), for status, logs and errors; nothing switches on it. */
  readonly name: string;
  /**
   * `true` when its data lives in this process only (SQLite in memory, the
   * embedded default): no other process sees what it holds, so the CLI
   * refuses to show or work it unless asked (`COMMITBUS_TRANSPORT=memory`),
   * and a router on it warns that its records are lost when it stops.
   */
  readonly inProcess?: boolean;
  /**
   * Where its data lives, for people (the worker's first line, logs):
   * `Redis at redis://host:6379, prefix commitbus`, `PostgreSQL
   * host:5432/app`, `SQLite ./events.sqlite`; never a password. Adapters
   * may leave it out.
   */
  location?(): string;
  /** The work source: published events waiting for a drain. */
  readonly log: EventLog;
  /** Handler jobs: async runs, retries, re-driven dead letters. */
  readonly jobs: HandlerJobQueue;
  /** Scheduling rules (pause, block) and parked work. */
  readonly rules: SchedulingRuleStore;
  /** Work given up after its last attempt. */
  readonly deadLetters: DeadLetterStore;
  /** Ordered events' lanes, shared by every process of the bus. */
  readonly ordering: OrderingStore;
  /** Each schedule's last tick (`bus.schedule`), claimed once per tick across the bus's processes. */
  readonly ticks: ScheduleTickStore;
  /** The bus's workers, each registered and beating while it runs (`bus.status().workers`). */
  readonly workers: WorkerRegistry;
  /** What the bus's processes counted, per minute for the last 24 hours (`bus.history()`). */
  readonly history: HistoryStore;
  /** The audit trail of operator actions, newest kept (`bus.audit`). */
  readonly audit: OperatorActionLog;
  /**
   * Appends a unit of work's events inside its own transaction, for a
   * transport whose events live in the application's database (the SQL
   * transport): a unit of work on {@link TransactionalPublisher.dataSource}
   * writes no outbox row, and its events exist exactly when it commits. A
   * unit of work on another DataSource, and every unit of work on an adapter
   * without it (Redis, a SQLite database of its own), keeps its events in the outbox until they
   * are published after commit.
   */
  readonly transactional?: TransactionalPublisher;
  /**
   * What an error of an operation across ports (`bus.status()`) becomes for
   * its caller: an outage named with its server and what to check, never a
   * password; any other error as it is. Adapters without a server leave it out.
   */
  failure?(action: string, error: unknown): unknown;
  /**
   * Resolves once the adapter's server answers; while it cannot be reached,
   * rejects soon with a `TransportUnavailableError` naming the server and
   * `action`. Adapters without a server leave it out.
   */
  reachable?(action: string): Promise<void>;
  /**
   * The BullMQ queues the adapter's work runs on (drain jobs, async handler
   * jobs, retries), for a queue UI such as bull-board and for job counts
   * (`commitbus/dashboard`); closed with the transport. Adapters whose work
   * is not on BullMQ leave it out. A type only: naming it loads no BullMQ.
   */
  readonly bullmqQueues?: readonly Queue[];
  /**
   * Opens the HTTP event router's stores (tokens, topics, subscribers, the
   * delivery queue) where this adapter keeps its data, on connections of
   * their own that the stores' `close()` ends; given-up batches go to
   * `shared.deadLetters` (the bus's). Each call opens new stores. Adapters
   * that cannot hold a router's data leave it out: `bus.router` then throws
   * `RouterStoresUnsupportedError`.
   */
  routerStores?(shared: { readonly deadLetters?: DeadLetterStore }): RouterStores;
}

/** What a bus hands an adapter value when it opens its transport. */
export interface TransportContext {
  /** The bus's configuration, with the adapter's {@link TransportAdapter.settings} applied. */
  readonly config: ResolvedCommitbusOptions;
  /** Where the bus logs. */
  readonly logger: Logger;
}

/**
 * A transport as a value, given to `createEventBus({ transport })`:
 * `redisTransport({ url })` from `commitbus/redis`, `sqlTransport({ dataSource })`
 * or `sqliteTransport({ file })` from `commitbus/sql`, or one of your own. The bus applies its
 * `settings` over its options, then calls `open` once and closes what it
 * returns with the bus. Adapters implement this structurally (they never
 * import the bus); a new one is a folder of its own plus a line in the
 * conformance list, and only `transports/select` (the default, the
 * environment's pick) names it above the adapters.
 */
export interface TransportAdapter {
  /** A name for logs and errors (`redis`, `sql`, `sqlite`); nothing switches on it. */
  readonly name: string;
  /** Where its data lives, applied over the bus's options (its Redis URL wins over `config.redis.url`). */
  readonly settings?: TransportSettings;
  /** As the transport's `inProcess`: `true` when what it holds lives in this process only. */
  readonly inProcess?: boolean;
  /** Opens the transport of one bus. */
  open(context: TransportContext): Transport;
  /**
   * Opens the HTTP event router's stores alone, for a router without a bus
   * (`startRouter(config, options, { transport })`), as
   * the transport's `routerStores` does for a bus; `context.config` is the
   * router's configuration with the adapter's settings applied. Adapters
   * that cannot hold a router's data leave it out.
   */
  routerStores?(context: TransportContext, shared: { readonly deadLetters?: DeadLetterStore }): RouterStores;
}
