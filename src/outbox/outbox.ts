import type { DataSource, EntityManager } from 'typeorm';
import type { OutboxOptions } from '../config/option-groups.js';
import type { OutgoingEvent } from '../events/outgoing-event.js';
import { OrderPositions } from '../ordering/order-positions.js';
import { type Routing, toOutgoing } from '../ordering/routing.js';
import { describeError, type Logger } from '../support/logger.js';
import { hasSingleConnection, withTransactionGate } from '../uow/transaction-gate.js';
import { OutboxNotConfiguredError } from './errors/outbox-not-configured.error.js';
import { type OutboxRecord, OutboxRecordEntity } from './outbox-record.entity.js';

/** An event to keep in the outbox, with where it goes. */
export interface OutboxEntry extends Routing {
  /** The event's id. */
  readonly id: string;
  /** The event's handling key. */
  readonly handlingKey: string;
  /** The serialized event. */
  readonly payload: string;
}

/** What the outbox needs of the bus's `outbox` options. */
export type OutboxSettings = Pick<OutboxOptions, 'graceMs' | 'relayBatchSize'>;

// Bound parameters per statement: PostgreSQL allows 65,535, SQLite 32,766.
const IDS_PER_DELETE = 5_000;
// Published rows are deleted in batches at most this often: one statement (and
// one commit) for every unit of work that committed meanwhile.
const DELETE_EVERY_MS = 25;

/**
 * The transactional outbox on one DataSource: units of work write their
 * events into `commitbus_outbox` in their own transaction; once published, the
 * rows are deleted in batches; rows a dead publisher left are republished by
 * {@link Outbox.relayOnce}.
 */
export class Outbox {
  private forgotten: string[] = [];
  private deleting: Promise<void> | undefined;
  private deleteTimer: NodeJS.Timeout | undefined;

  /** Positions of ordered events, reserved in the same transactions as the rows. */
  readonly positions: OrderPositions;

  constructor(
    /** Where the outbox table lives. */
    readonly dataSource: DataSource,
    private readonly settings: OutboxSettings,
    private readonly logger: Logger,
  ) {
    this.positions = new OrderPositions(dataSource);
  }

  /**
   * Checks that units of work can write to the outbox: the DataSource knows
   * the `commitbus_outbox` entity and its table exists. Resolves `true` when
   * they can, `false` when the DataSource is not initialized yet (nothing to
   * ask); throws {@link OutboxNotConfiguredError} naming what is missing.
   */
  async check(): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    if (!this.dataSource.hasMetadata(OutboxRecordEntity)) {
      throw new OutboxNotConfiguredError('the DataSource does not know the commitbus_outbox entity');
    }
    try {
      await this.dataSource.query(`SELECT 1 FROM ${this.tableName()} WHERE 1 = 0`);
    } catch (error) {
      if (isMissingTable(error)) {
        const { tablePath } = this.dataSource.getMetadata(OutboxRecordEntity);
        throw new OutboxNotConfiguredError(`the table ${tablePath} does not exist`, { cause: error });
      }
      throw error;
    }
    return true;
  }

  /** Writes `entries` in the transaction of `manager`, in one INSERT. */
  async write(manager: EntityManager, entries: readonly OutboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (!this.dataSource.hasMetadata(OutboxRecordEntity)) {
      throw new OutboxNotConfiguredError('the DataSource does not know the commitbus_outbox entity');
    }
    const createdAt = Date.now();
    const params: unknown[] = [];
    const tuples = entries.map((entry, registrationOrder) => {
      const first = params.length;
      params.push(
        entry.id,
        createdAt,
        registrationOrder,
        entry.handlingKey,
        entry.payload,
        entry.deliverAt ?? null,
        entry.orderKey ?? null,
        entry.orderPosition ?? null,
      );
      const marks = [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
        this.dataSource.driver.createParameter(`p${first + i}`, first + i),
      );
      return `(${marks.join(', ')})`;
    });
    try {
      // Plain SQL: this runs once per unit of work, and TypeORM's query builder
      // costs about as much CPU as the rest of the unit of work.
      await manager.query(`${this.insertSql()} VALUES ${tuples.join(', ')}`, params);
    } catch (error) {
      if (isMissingTable(error)) {
        throw new OutboxNotConfiguredError('the commitbus_outbox table does not exist', { cause: error });
      }
      throw error;
    }
  }

  private insertSqlOf: string | undefined;

  private insertSql(): string {
    if (this.insertSqlOf === undefined) {
      const metadata = this.dataSource.getMetadata(OutboxRecordEntity);
      const { driver } = this.dataSource;
      const table = this.tableName();
      const columns = [
        'eventId',
        'createdAt',
        'registrationOrder',
        'handlingKey',
        'payload',
        'deliverAt',
        'orderKey',
        'orderPosition',
      ].map((property) =>
        driver.escape(metadata.findColumnWithPropertyName(property)?.databaseName ?? property),
      );
      this.insertSqlOf = `INSERT INTO ${table} (${columns.join(', ')})`;
    }
    return this.insertSqlOf;
  }

  /** The outbox table's name, escaped for SQL (with its schema, if it has one). */
  private tableName(): string {
    const { driver } = this.dataSource;
    return this.dataSource
      .getMetadata(OutboxRecordEntity)
      .tablePath.split('.')
      .map((part) => driver.escape(part))
      .join('.');
  }

  /**
   * Marks rows as published. They are deleted within a few milliseconds by
   * one statement for every row forgotten meanwhile, without holding up the
   * caller, in a transaction that does not wait for its WAL flush on
   * PostgreSQL (`synchronous_commit = off`): a delete lost to a crash or an
   * outage only makes a relay republish the row, and the transport drops the
   * duplicate.
   */
  forget(eventIds: readonly string[]): void {
    if (eventIds.length === 0) return;
    this.forgotten.push(...eventIds);
    if (this.deleting === undefined) this.scheduleDelete(); // else the running batch loop takes them
  }

  /** Deletes every forgotten row now; resolves once done. */
  async flush(): Promise<void> {
    if (this.forgotten.length > 0) this.startDeleting();
    while (this.deleting !== undefined) await this.deleting;
  }

  private scheduleDelete(): void {
    if (this.forgotten.length >= IDS_PER_DELETE) {
      this.startDeleting();
    } else if (this.deleteTimer === undefined) {
      this.deleteTimer = setTimeout(() => this.startDeleting(), DELETE_EVERY_MS);
      this.deleteTimer.unref();
    }
  }

  private startDeleting(): void {
    clearTimeout(this.deleteTimer);
    this.deleteTimer = undefined;
    this.deleting ??= this.deleteForgotten().finally(() => {
      this.deleting = undefined;
      if (this.forgotten.length > 0) this.scheduleDelete();
    });
  }

  private async deleteForgotten(): Promise<void> {
    while (this.forgotten.length > 0) {
      const ids = this.forgotten.splice(0, IDS_PER_DELETE);
      try {
        await this.deletePublished(ids);
      } catch (error) {
        this.logger.warn(
          { rows: ids.length, error: describeError(error).message },
          'could not delete published outbox rows; a relay will republish them and the transport drops the duplicates',
        );
      }
    }
  }

  // Through the gate: on SQLite's one connection, a delete must not run inside another unit of work.
  private deletePublished(eventIds: readonly string[]): Promise<void> {
    return withTransactionGate(this.dataSource, () =>
      this.dataSource.transaction(async (manager) => {
        if (this.dataSource.options.type === 'postgres') {
          await manager.query('SET LOCAL synchronous_commit = off');
        }
        await this.deleteRows(manager, eventIds);
      }),
    );
  }

  private async deleteRows(manager: EntityManager, eventIds: readonly string[]): Promise<void> {
    await manager
      .createQueryBuilder()
      .delete()
      .from(OutboxRecordEntity)
      .where('event_id IN (:...ids)', { ids: eventIds })
      .execute();
  }

  /**
   * Claims up to `relayBatchSize` rows older than `graceMs`, in
   * write order, hands them to `publish`, and deletes them, in one
   * transaction. On PostgreSQL rows are claimed with `FOR UPDATE SKIP LOCKED`,
   * so relays in several processes share the work; a failed publish rolls
   * back and leaves the rows for the next run. Resolves to how many rows it
   * published.
   */
  async relayOnce(publish: (events: readonly OutgoingEvent[]) => Promise<unknown>): Promise<number> {
    if (!this.dataSource.isInitialized || !this.dataSource.hasMetadata(OutboxRecordEntity)) return 0;
    const cutoff = Date.now() - this.settings.graceMs;
    return withTransactionGate(this.dataSource, () =>
      this.dataSource.transaction(async (manager) => {
        const query = manager
          .createQueryBuilder(OutboxRecordEntity, 'o')
          .where('o.createdAt <= :cutoff', { cutoff })
          .orderBy('o.createdAt', 'ASC')
          .addOrderBy('o.registrationOrder', 'ASC')
          .limit(this.settings.relayBatchSize);
        if (!hasSingleConnection(this.dataSource)) {
          query.setLock('pessimistic_write').setOnLocked('skip_locked');
        }
        const rows = await query.getMany();
        if (rows.length === 0) return 0;
        await publish(rows.map(toOutgoingRow));
        await this.deleteRows(
          manager,
          rows.map((row) => row.eventId),
        );
        this.logger.warn(
          { events: rows.length },
          'relayed events a publisher had left in the outbox (it died or lost the transport after commit)',
        );
        return rows.length;
      }),
    );
  }

  /** Rows in the outbox: events committed and not yet known to be published. */
  async pending(): Promise<number> {
    return this.reading(() => this.dataSource.getRepository(OutboxRecordEntity).count());
  }

  /** When the oldest row was written, or undefined when the outbox is empty. */
  async oldestAt(): Promise<Date | undefined> {
    const row = await this.reading(() =>
      this.dataSource
        .getRepository(OutboxRecordEntity)
        .createQueryBuilder('row')
        .select('MIN(row.createdAt)', 'oldest')
        .getRawOne<{ oldest: string | number | null }>(),
    );
    return row?.oldest === null || row?.oldest === undefined ? undefined : new Date(Number(row.oldest));
  }

  /** Runs a read of the outbox; a missing entity or table is {@link OutboxNotConfiguredError}, not TypeORM's error. */
  private async reading<T>(read: () => Promise<T>): Promise<T> {
    if (!this.dataSource.hasMetadata(OutboxRecordEntity)) {
      throw new OutboxNotConfiguredError('the DataSource does not know the commitbus_outbox entity');
    }
    try {
      return await read();
    } catch (error) {
      if (!isMissingTable(error)) throw error;
      const { tablePath } = this.dataSource.getMetadata(OutboxRecordEntity);
      throw new OutboxNotConfiguredError(`the table ${tablePath} does not exist`, { cause: error });
    }
  }
}

/** An outbox row as the transport takes it. */
function toOutgoingRow(row: OutboxRecord): OutgoingEvent {
  return toOutgoing(row.eventId, row.payload, {
    orderKey: row.orderKey ?? undefined,
    orderPosition: row.orderPosition ?? undefined,
    deliverAt: row.deliverAt ?? undefined,
  });
}

function isMissingTable(error: unknown): boolean {
  const message = describeError(error).message;
  return /relation .*commitbus_outbox.* does not exist|no such table: .*commitbus_outbox/i.test(message);
}
