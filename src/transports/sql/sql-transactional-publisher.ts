import type { DataSource, EntityManager } from 'typeorm';
import type { AppendResult, OutgoingEvent } from '../../events/outgoing-event.js';
import type { TransactionalPublisher } from '../../events/transactional-publisher.js';
import { InternalError } from '../../support/errors/internal.error.js';
import type { SqlEventLog } from './sql.event-log.js';
import type { SqlDb } from './sql-db.js';
import type { SqlWakeups } from './sql-wakeups.js';

/**
 * The SQL transport's {@link TransactionalPublisher}: a unit of work on the
 * transport's DataSource appends its events to `commitbus_events` in its own
 * transaction (`SqlEventLog.appendWith` on the unit of work's query runner),
 * with their dedupe ids and ordered events' lanes, and on PostgreSQL the
 * wake-up `NOTIFY`, which the database delivers on commit only. A batch the
 * lanes refuse (a key numbered otherwise than its lane) fails the unit of
 * work before anything is written. After the commit this process's drains
 * and lane workers are woken at once; other SQLite processes find the rows
 * at their next poll.
 */
export class SqlTransactionalPublisher implements TransactionalPublisher {
  constructor(
    private readonly db: SqlDb,
    private readonly log: SqlEventLog,
    private readonly wakeups: SqlWakeups,
  ) {}

  get dataSource(): DataSource {
    return this.db.dataSource;
  }

  async publishIn(manager: EntityManager, events: readonly OutgoingEvent[]): Promise<AppendResult> {
    // Another database, or statements committing one by one outside a transaction: never what a caller means.
    if (manager.connection !== this.db.dataSource) {
      throw new InternalError(
        'SqlTransactionalPublisher.publishIn got an EntityManager of another DataSource',
      );
    }
    if (manager.queryRunner?.isTransactionActive !== true) {
      throw new InternalError(
        'SqlTransactionalPublisher.publishIn got an EntityManager with no open transaction',
      );
    }
    return this.log.appendWith(this.db.within(manager), events);
  }

  committed(result: AppendResult): void {
    if (result.appended === 0) return;
    // Which of them were ordered is not kept: a lane worker woken for nothing looks and waits again.
    this.wakeups.local('events');
    this.wakeups.local('lanes');
  }
}
