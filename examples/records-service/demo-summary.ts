import type { App } from './app.js';
import type { Log } from './demo-steps.js';
import { EventMetric, Notification, Record, SearchIndexEntry } from './entities.js';
import { PopularRecord, RecordViews } from './views.js';

/**
 * Prints what the steps, handlers and models left, once all is handled: the
 * same lines after a run resumed from a kill as after one that ran through
 * (every row in a fixed order).
 */
export async function printSummary({ bus, dataSource, views }: App, log: Log): Promise<void> {
  const records = await dataSource.getRepository(Record).find({ order: { recid: 'ASC' } });
  log(
    `  records (committed):   ${records.map((r) => `${r.recid}${r.published ? ' published' : ''}`).join(', ')}`,
  );
  const metrics = await dataSource.getRepository(EventMetric).find({ order: { key: 'ASC' } });
  log(`  metrics.count (sync):  ${metrics.map((m) => `${m.key}=${m.count}`).join(', ')}`);
  const index = await dataSource.getRepository(SearchIndexEntry).find({ order: { recid: 'ASC' } });
  log(`  search.index (async):  ${index.map((r) => `${r.recid} "${r.title}"`).join(', ')}`);
  const notes = await dataSource
    .getRepository(Notification)
    .find({ order: { recid: 'ASC', message: 'ASC' } });
  log(`  notifications (async): ${notes.map((n) => n.message).join('; ')}`);
  const viewRows = await dataSource.getRepository(RecordViews).find({ order: { recid: 'ASC' } });
  log(`  record_views (event-sourced): ${viewRows.map((r) => `${r.recid}=${r.views}`).join(', ')}`);
  const popular = await dataSource.getRepository(PopularRecord).find({ order: { recid: 'ASC' } });
  log(`  popular_record (sub-event): ${popular.map((r) => `${r.recid} since v${r.since}`).join(', ')}`);
  log(
    `  event store version:   v${await views.getVersion()}, halted: ${(await views.halted()) ? 'yes' : 'no'}`,
  );
  await bus.outbox?.flush();
  log(`  outbox rows left:      ${await bus.outbox?.pending()}`);
  const deadLetters = await bus.deadLetters.list();
  log(`  dead letters:          ${deadLetters.length}`);
}
