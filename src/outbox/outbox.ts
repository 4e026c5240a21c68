import type { DataSource, EntityManager } from 'typeorm';
import { describeError, type Logger } from '../bus/logger.js';
import type { OutgoingEvent } from '../bus/outgoing-event.js';
import { hasSingleConnection, withTransactionGate } from '../uow/transaction-gate.js';
import { OutboxNotConfiguredError } from './outbox-not-configured.error.js';
import { type OutboxRecord, OutboxRecordEntity } from './outbox-record.entity.js';

/** An event to keep in the outbox. */
export interface OutboxEntry extends OutgoingEvent {
  /** The event's handling key. */
  readonly handlingKey: string;
}

/** What the outbox needs from the bus configuration. */
export interface OutboxSettings {
  /** Rows older than this (ms) are republished by the relay. */
  readonly outboxGraceMs: number;
  /** Most rows one relay transaction takes. */
  readonly outboxRelayBatchSize: number;
}

// Bound parameters per statement: PostgreSQL allows 65,535, SQLite 32,766.
const IDS_PER_DELETE = 5_000;

/**
 * The transactional outbox on one DataSource: units of work write their
 * events into `commitbus_outbox` in their own transaction; once published, the
 * rows are deleted in batches; rows a dead publisher left are republished by
 * {@link Outbox.relayOnce}.
 */
export class Outbox {
  private forgotten: string[] = [];
  private deleting: Promise<void> | undefined;

  constructor(
    /** Where the outbox table lives. */
    readonly dataSource: DataSource,
    private readonly settings: OutboxSettings,
    private readonly logger: Logger,
  ) {}

  /** Writes `entries` in the transaction of `manager`, in one INSERT. */
  async write(manager: EntityManager, entries: readonly OutboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (!this.dataSource.hasMetadata(OutboxRecordEntity)) {
      throw new OutboxNotConfiguredError('the DataSource does not know the commitbus_outbox entity');
    }
    const createdAt = Date.now();
    const rows: OutboxRecord[] = entries.map((entry, position) => ({
      eventId: entry.id,
      createdAt,
      position,
      handlingKey: entry.handlingKey,
      payload: entry.payload,
      deliverAt: entry.deliverAt ?? null,
    }));
    try {
      await manager
        .createQueryBuilder()
        .insert()
        .into(OutboxRecordEntity)
        .values(rows)
        .updateEntity(false)
        .execute();
    } catch (error) {
      if (isMissingTable(error)) {
        throw new OutboxNotConfiguredError('the commitbus_outbox table does not exist', { cause: error });
      }
      throw error;
    }
  }

  /**
   * Marks rows as published. They are deleted by one statement for every
   * row forgotten meanwhile, without holding up the caller; a row whose
   * delete is lost (crash, database away) is republished by a relay and
   * dropped as a duplicate by the transport.
   */
  forget(eventIds: readonly string[]): void {
    if (eventIds.length === 0) return;
    this.forgotten.push(...eventIds);
    this.deleting ??= this.deleteForgotten();
  }

  /** Deletes every forgotten row now; resolves once done. */
  async flush(): Promise<void> {
    while (this.deleting !== undefined) await this.deleting;
  }

  private async deleteForgotten(): Promise<void> {
    // Let the units of work committing right now join this statement.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.forgotten.length > 0) {
        const ids = this.forgotten.splice(0, IDS_PER_DELETE);
        try {
          await this.deleteRows(this.dataSource.manager, ids);
        } catch (error) {
          this.logger.warn(
            { rows: ids.length, error: describeError(error).message },
            'could not delete published outbox rows; a relay will republish them and the transport drops the duplicates',
          );
        }
      }
    } finally {
      this.deleting = undefined;
    }
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
   * Claims up to `outboxRelayBatchSize` rows older than `outboxGraceMs`, in
   * write order, hands them to `publish`, and deletes them, in one
   * transaction. On PostgreSQL rows are claimed with `FOR UPDATE SKIP LOCKED`,
   * so relays in several processes share the work; a failed publish rolls
   * back and leaves the rows for the next run. Resolves to how many rows it
   * published.
   */
  async relayOnce(publish: (events: readonly OutgoingEvent[]) => Promise<unknown>): Promise<number> {
    if (!this.dataSource.isInitialized || !this.dataSource.hasMetadata(OutboxRecordEntity)) return 0;
    const cutoff = Date.now() - this.settings.outboxGraceMs;
    return withTransactionGate(this.dataSource, () =>
      this.dataSource.transaction(async (manager) => {
        const query = manager
          .createQueryBuilder(OutboxRecordEntity, 'o')
          .where('o.createdAt <= :cutoff', { cutoff })
          .orderBy('o.createdAt', 'ASC')
          .addOrderBy('o.position', 'ASC')
          .limit(this.settings.outboxRelayBatchSize);
        if (!hasSingleConnection(this.dataSource)) {
          query.setLock('pessimistic_write').setOnLocked('skip_locked');
        }
        const rows = await query.getMany();
        if (rows.length === 0) return 0;
        await publish(
          rows.map((row) => ({
            id: row.eventId,
            payload: row.payload,
            ...(row.deliverAt !== null ? { deliverAt: row.deliverAt } : {}),
          })),
        );
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
    return this.dataSource.getRepository(OutboxRecordEntity).count();
  }
}

function isMissingTable(error: unknown): boolean {
  const message = describeError(error).message;
  return /relation .*commitbus_outbox.* does not exist|no such table: .*commitbus_outbox/i.test(message);
}
