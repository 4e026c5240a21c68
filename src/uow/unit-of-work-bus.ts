import type { DataSource, EntityManager } from 'typeorm';
import type { DeliveryOptions } from '../events/delivery-options.js';
import type { Event } from '../events/event.js';
import type { Logger } from '../support/logger.js';
import type { OperatorAudit } from '../support/operator-audit.js';

/**
 * The events registered in one unit of work: kept in the transaction just
 * before commit (in the outbox, or appended by a transport whose tables are
 * on the transaction's DataSource), published after it.
 */
export interface UnitOfWorkEvents {
  /**
   * Adds an event; it is serialized at once, so an unregistered class or bad
   * delivery options fail at registration. An id already added is ignored.
   */
  add(event: Event, delivery?: DeliveryOptions): void;
  /** The events added so far. */
  list(): readonly Event[];
  /** @internal Runs in the transaction, just before commit. */
  beforeCommit(manager: EntityManager): Promise<void>;
  /** @internal Runs as soon as the transaction committed, before any hook: delays count from now. */
  committed?(): void;
  /** Publishes every event once; later calls share the first call's outcome. */
  flush(): Promise<void>;
}

/** What a unit of work needs from the event bus (`EventBus` is one). */
export interface UnitOfWorkBus {
  /** The DataSource the bus keeps its outbox and idempotency records in, if any. */
  readonly dataSource: DataSource | undefined;
  /** Makes `dataSource` the bus's DataSource (a bus has one; another is refused). */
  useDataSource(dataSource: DataSource): unknown;
  /** A new, empty set of events for one unit of work. */
  openEvents(): UnitOfWorkEvents;
  /** Where the bus logs: an event store on the bus given no logger logs there too. */
  readonly logger?: Logger;
  /** The bus's audit trail: an event store on the bus records its operator actions there. */
  readonly audit?: OperatorAudit;
}
