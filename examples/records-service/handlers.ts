import type { DataSource } from 'typeorm';
import { defineHandler, type EventHandlersConfig, handlers } from '../../src/index.js';
import { EventMetric, Notification, Record, SearchIndexEntry } from './entities.js';
import { RecordEvent, RecordPopularEvent, RecordPublishedEvent } from './events.js';

/** The example's `EVENT_HANDLERS`; handlers write through `dataSource`. */
export function eventHandlers(dataSource: DataSource): EventHandlersConfig {
  /** Sync: counts every record event by key (cheap, runs inline in the drain). */
  const countMetrics = defineHandler('metrics.count', async (event: RecordEvent) => {
    const metrics = dataSource.getRepository(EventMetric);
    await metrics
      .createQueryBuilder()
      .insert()
      .values({ key: event.handlingKey, count: 0 })
      .orIgnore()
      .execute();
    await metrics.increment({ key: event.handlingKey }, 'count', 1);
  });

  /**
   * Async and idempotent: tells the owner their record is out, once. The row
   * commits with commitbus's completion record (through `ctx.uow`, always set
   * for a handler defined idempotent), so a redelivered event does not notify twice.
   */
  const sendNotification = defineHandler(
    'notifications.send',
    async (event: RecordPublishedEvent, ctx) => {
      await ctx.uow.manager
        .getRepository(Notification)
        .insert({ recid: event.recid, message: `Your record ${event.recid} is published` });
    },
    { idempotent: true },
  );

  /**
   * Async: reindexes the record from the database. Record events are ordered
   * per record, so this runs for r1's create before r1's publish, never both at once.
   */
  const updateSearchIndex = defineHandler('search.index', async (event: RecordEvent) => {
    const record = await dataSource.getRepository(Record).findOneBy({ recid: event.recid });
    const index = dataSource.getRepository(SearchIndexEntry);
    if (record === null) {
      await index.delete({ recid: event.recid });
    } else {
      await index.save({ recid: record.recid, title: record.title, published: record.published });
    }
  });

  /** Async and idempotent: tells the owner their record is popular (the event comes from the event store). */
  const notifyPopular = defineHandler(
    'notifications.popular',
    async (event: RecordPopularEvent, ctx) => {
      await ctx.uow.manager
        .getRepository(Notification)
        .insert({ recid: event.recid, message: `Your record ${event.recid} is popular` });
    },
    { idempotent: true },
  );

  // Typed: each handler is checked against its class. The map form builds the same:
  // { RECORD: [[countMetrics, true], updateSearchIndex], 'RECORD.PUBLISH': [sendNotification], ... }
  return handlers()
    .on(RecordEvent, countMetrics, { sync: true })
    .on(RecordEvent, updateSearchIndex)
    .on(RecordPublishedEvent, sendNotification)
    .on(RecordPopularEvent, notifyPopular)
    .build();
}
