import { defineHandler, type EventHandlersConfig, handlers } from '../../src/index.js';
import { EventMetric, Notification, Record, SearchIndexEntry } from './entities.js';
import { RecordEvent, RecordPopularEvent, RecordPublishedEvent } from './events.js';

/**
 * The example's `EVENT_HANDLERS`. Each is idempotent: it writes through
 * `ctx.uow` (always set for a handler defined idempotent), so its rows commit
 * with commitbus's record that it handled the event, and an event delivered
 * again (its worker was killed before it said so) changes nothing twice. On
 * SQLite that also keeps a handler's statements off the one connection while
 * another transaction holds it: a unit of work waits its turn.
 */
export function eventHandlers(): EventHandlersConfig {
  /** Sync: counts every record event by key (cheap, runs inline in the drain). */
  const countMetrics = defineHandler(
    'metrics.count',
    async (event: RecordEvent, ctx) => {
      const metrics = ctx.uow.manager.getRepository(EventMetric);
      await metrics
        .createQueryBuilder()
        .insert()
        .values({ key: event.handlingKey, count: 0 })
        .orIgnore()
        .execute();
      await metrics.increment({ key: event.handlingKey }, 'count', 1);
    },
    { idempotent: true },
  );

  /** Async: tells the owner their record is out, once. */
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
  const updateSearchIndex = defineHandler(
    'search.index',
    async (event: RecordEvent, ctx) => {
      const record = await ctx.uow.manager.findOneBy(Record, { recid: event.recid });
      const index = ctx.uow.manager.getRepository(SearchIndexEntry);
      if (record === null) {
        await index.delete({ recid: event.recid });
      } else {
        await index.save({ recid: record.recid, title: record.title, published: record.published });
      }
    },
    { idempotent: true },
  );

  /** Async: tells the owner their record is popular (the event comes from the event store). */
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
