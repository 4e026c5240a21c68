import type { ResolvedCommitbusOptions } from '../../config/commitbus-options.js';
import { deadLetterRetention } from '../../dead-letters/dropped-letters-log.js';
import type { EventPublisher } from '../../events/event-publisher.js';
import type { AppendResult, OutgoingEvent } from '../../events/outgoing-event.js';
import type { TransportWorker, WorkerRuntime } from '../../handlers/handler-worker.js';
import type { WorkerHost } from '../../handlers/worker-host.js';
import { laneGapWaitMs } from '../../ordering/lane-rebase.js';
import type { WorkerOrdering, WorkerOrderingSource } from '../../ordering/worker-ordering.js';
import type { ScheduleTickStore } from '../../scheduling/schedule-tick-store.js';
import type { Closable } from '../../support/closable.js';
import type { Logger } from '../../support/logger.js';
import { SqlDeadLetterStore } from './sql.dead-letter-store.js';
import { SqlEventLog } from './sql.event-log.js';
import { SqlHistoryStore } from './sql.history-store.js';
import { SqlHandlerJobQueue } from './sql.job-queue.js';
import { SqlOperatorActionLog } from './sql.operator-action-log.js';
import { SqlOrderingStore } from './sql.ordering-store.js';
import { SqlScheduleTickStore } from './sql.schedule-tick-store.js';
import { SqlSchedulingRuleStore } from './sql.scheduling-rule-store.js';
import { SqlWorkerRegistry } from './sql.worker-registry.js';
import { asUnavailable } from './sql-connection-failure.js';
import { SqlDb } from './sql-db.js';
import { openSqlWakeups } from './sql-notifications.js';
import { guardPgPool } from './sql-pg-pool-guard.js';
import { SqlTransactionalPublisher } from './sql-transactional-publisher.js';
import type { SqlTransportOptions } from './sql-transport-options.js';
import type { SqlWakeups } from './sql-wakeups.js';
import { SqlWorkerHost } from './sql-worker-host.js';
import { isInMemory, type SqlDataSourceOwner } from './sqlite-owned-data-source.js';

/**
 * The SQL transport of one bus: every port on tables in the application's
 * own database (PostgreSQL or SQLite), which is the source of truth. Rows
 * are the work; a wake-up (`NOTIFY` on PostgreSQL) only says "look", and a
 * poll every `pollMs` covers what a wake-up missed. Workers in any process
 * claim rows with a lease timestamp and run handlers outside any claim
 * transaction. A unit of work on the transport's own DataSource writes its
 * events here inside its transaction ({@link SqlTransport.transactional}).
 * Every table's rows carry the bus's name, so buses share the tables.
 */
export class SqlTransport implements EventPublisher, WorkerHost, WorkerOrderingSource, Closable {
  /** The adapter's name, as `bus.status()` shows it. */
  readonly name: 'sql-postgres' | 'sql-sqlite';
  /** The database handle every port runs its statements on. */
  readonly db: SqlDb;
  /** Published events waiting for a drain. */
  readonly log: SqlEventLog;
  /** Handler jobs: async runs, retries, re-driven dead letters. */
  readonly jobs: SqlHandlerJobQueue;
  /** Pause and block rules, parked work, dropped counts. */
  readonly rules: SqlSchedulingRuleStore;
  /** Work given up after its last attempt. */
  readonly deadLetters: SqlDeadLetterStore;
  /** Ordered events' lanes. */
  readonly ordering: SqlOrderingStore;
  /** Each schedule's last tick. */
  readonly ticks: ScheduleTickStore;
  /** The bus's workers and their beats. */
  readonly workers: SqlWorkerRegistry;
  /** The bus's history per minute. */
  readonly history: SqlHistoryStore;
  /** The bus's audit trail of operator actions. */
  readonly audit: SqlOperatorActionLog;
  /**
   * A unit of work's events appended in its own transaction, when it runs on
   * this transport's DataSource: no outbox row, no relay hop.
   */
  readonly transactional: SqlTransactionalPublisher;
  /** How often, in milliseconds, its workers look for work no wake-up told them of. */
  readonly pollMs: number;
  /** `true` on a database only this process sees (SQLite in memory): the CLI refuses to show or work it unless asked. */
  readonly inProcess: boolean;
  private readonly wakeups: SqlWakeups;
  private readonly workerHost: SqlWorkerHost;
  private readonly shutdownTimeoutMs: number;

  /**
   * @param owner - for a DataSource the transport made itself
   * (`sqliteTransport()`): opened before the first statement, destroyed by
   * {@link SqlTransport.close}. Absent, the DataSource is the application's.
   */
  constructor(
    options: SqlTransportOptions,
    config: ResolvedCommitbusOptions,
    logger: Logger,
    owner?: SqlDataSourceOwner,
  ) {
    this.db = new SqlDb(options.dataSource, logger, owner);
    this.inProcess = owner?.inProcess ?? isInMemory(options.dataSource);
    // Now if the DataSource is initialized already, else at the first statement.
    guardPgPool(options.dataSource, logger);
    this.name = this.db.dialect === 'postgres' ? 'sql-postgres' : 'sql-sqlite';
    const bus = config.name;
    this.shutdownTimeoutMs = config.shutdownTimeoutMs;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.wakeups = openSqlWakeups(this.db, bus, logger);
    this.ordering = new SqlOrderingStore(this.db, bus, {
      gapWaitMs: laneGapWaitMs(config.outbox),
      wakeups: this.wakeups,
      pollMs: this.pollMs,
    });
    this.log = new SqlEventLog(this.db, bus, {
      dedupeWindowMs: config.publishing.dedupeWindowMs,
      wakeups: this.wakeups,
      lanes: (tx, events) => this.ordering.openLanes(tx, events),
    });
    this.transactional = new SqlTransactionalPublisher(this.db, this.log, this.wakeups);
    this.jobs = new SqlHandlerJobQueue(this.db, bus, this.wakeups);
    this.rules = new SqlSchedulingRuleStore(this.db, bus, this.jobs);
    this.deadLetters = new SqlDeadLetterStore(this.db, bus, deadLetterRetention(config.deadLetters, logger));
    this.ticks = new SqlScheduleTickStore(this.db, bus);
    this.workers = new SqlWorkerRegistry(this.db, bus);
    this.history = new SqlHistoryStore(this.db, bus);
    this.audit = new SqlOperatorActionLog(this.db, bus, config.audit.maxEntries);
    this.workerHost = new SqlWorkerHost({
      bus,
      log: this.log,
      jobs: this.jobs,
      deadLetters: this.deadLetters,
      wakeups: this.wakeups,
      pollMs: this.pollMs,
      drains: options.drains ?? (this.db.dialect === 'postgres' ? DEFAULT_PG_DRAINS : 1),
      // Five polls, within 0.25 to 5 s: expired dedupe ids are a little storage, not work.
      pruneEveryMs: Math.min(Math.max(this.pollMs * 5, 250), 5_000),
    });
  }

  /**
   * Appends in one transaction; an ordered event goes to its lane there, and
   * a batch that numbers a lane otherwise than the lane does is refused whole
   * (`OrderingPositionsMismatchError`) before anything is written.
   */
  async publish(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    return this.log.append(events);
  }

  releaseDue(limit: number): Promise<number> {
    return this.log.releaseDue(limit);
  }

  startWorker(runtime: WorkerRuntime): Promise<TransportWorker> {
    return this.workerHost.startWorker(runtime);
  }

  workerOrdering(): WorkerOrdering {
    return { store: this.ordering, close: () => {} };
  }

  /** Where the tables are: `PostgreSQL host:port/database` or `SQLite <file>`, never a password. */
  location(): string {
    return this.db.where();
  }

  /** Resolves once the database answers; else a `TransportUnavailableError` naming it. */
  async reachable(action: string): Promise<void> {
    try {
      await this.db.query('SELECT 1 AS one');
    } catch (error) {
      throw this.failure(action, error);
    }
  }

  /** A database that cannot be reached becomes a `TransportUnavailableError` naming it; anything else stays as it is. */
  failure(action: string, error: unknown): unknown {
    return asUnavailable(action, this.db.where(), error);
  }

  async close(): Promise<void> {
    await this.workerHost.close(this.shutdownTimeoutMs);
    await this.wakeups.close();
    // An owned DataSource (sqliteTransport) is destroyed once the statements under way settle.
    await this.db.close(this.shutdownTimeoutMs);
  }
}

/** How often workers look for work no wake-up told them of, by default. */
export const DEFAULT_POLL_MS = 1_000;

/** Drains per worker on PostgreSQL by default: an event published while one is busy is claimed by another. */
const DEFAULT_PG_DRAINS = 3;
