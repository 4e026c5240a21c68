// `npm run demo`: the records service end to end. Without environment it runs
// on SQLite in memory and the in-process bus; with REDIS_URL and DATABASE_URL
// it runs on Redis + PostgreSQL, with the worker as a separate process, and
// removes what it created there (its schema and Redis keys) before and after.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { removeDemoData } from './cleanup.js';
import { EventMetric, Notification, Record, SearchIndexEntry } from './entities.js';
import { POPULAR_AT, PopularRecord, RecordViews } from './views.js';

const log = (line: string) => console.log(line);
// A run that was stopped half-way left its schema and keys: start from none.
await removeDemoData();
const app = await createApp(process.env, (events) => {
  for (const e of events) log(`  published  ${e.handlingKey.padEnd(15)} ${e.id}`);
});
const { bus, dataSource, service, views } = app;
const onRedis = bus.runsOn.transport === 'redis';
log(
  `commitbus demo on ${onRedis ? 'Redis + PostgreSQL' : 'the embedded default (in-process bus, SQLite)'}\n`,
);

let child: ChildProcess | undefined;
if (onRedis) {
  child = fork(fileURLToPath(new URL('./worker.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
  });
  await once(child, 'message');
} else {
  await bus.startWorker({ handleSignals: false });
}
// The event store's writer: this process becomes the one writer for the view counts.
await views.start();

// TypeORM gives SQLite a single connection, so in-process handlers would write
// inside whatever transaction the service has open: on the embedded default
// the demo lets the handlers finish after each step. PostgreSQL needs no wait.
const step = async (title: string, action: () => Promise<unknown>) => {
  log(title);
  await action();
  if (!onRedis) await bus.whenIdle();
};
for (const [recid, title] of [
  ['r1', 'Coral reefs'],
  ['r2', 'Glaciers'],
  ['r3', 'Dunes'],
] as const) {
  await step(`create ${recid} (a unit of work; its event goes out after commit)`, () =>
    service.create(recid, title),
  );
}
await step('publish r1, r2', async () => {
  await service.publish('r1');
  await service.publish('r2');
});
await step('delete r3', () => service.delete('r3'));
await step('create r1 again: the insert fails, the transaction rolls back, nothing is published', () =>
  service.create('r1', 'Duplicate').then(
    () => log('  unexpected: it committed'),
    (error: Error) => log(`  rolled back: ${error.message.split('\n')[0]}`),
  ),
);

await step(
  `view r1 ${POPULAR_AT} times and r2 once (each view is a unit of work dispatching RECORD.VIEWED to the event store)`,
  async () => {
    for (const recid of [...Array(POPULAR_AT).fill('r1'), 'r2']) {
      const op = await service.view(recid);
      const handled = await op.handled();
      const sub = handled.events.map((e) => `, sub-event ${e.type}`).join('');
      log(
        `  v${handled.v} RECORD.VIEWED ${recid}: views=${String(handled.result?.recordViews?.sav?.[0]?.views)}${sub}`,
      );
    }
  },
);
await step('view r3: it was deleted, so the unit of work fails and nothing is dispatched', () =>
  service.view('r3').then(
    () => log('  unexpected: it committed'),
    (error: Error) => log(`  rolled back: ${error.message}`),
  ),
);

// Handlers run on the worker (a separate process on Redis); wait until all is handled.
const started = Date.now();
await views.waitForQueue();
await bus.whenIdle(15_000);
log(`\nall handled ${Date.now() - started} ms after the last commit:`);
const records = await dataSource.getRepository(Record).find({ order: { recid: 'ASC' } });
log(
  `  records (committed):   ${records.map((r) => `${r.recid}${r.published ? ' published' : ''}`).join(', ')}`,
);
const metrics = await dataSource.getRepository(EventMetric).find({ order: { key: 'ASC' } });
log(`  metrics.count (sync):  ${metrics.map((m) => `${m.key}=${m.count}`).join(', ')}`);
const index = await dataSource.getRepository(SearchIndexEntry).find({ order: { recid: 'ASC' } });
log(`  search.index (async):  ${index.map((r) => `${r.recid} "${r.title}"`).join(', ')}`);
const notes = await dataSource.getRepository(Notification).find({ order: { id: 'ASC' } });
log(`  notifications (async, idempotent): ${notes.map((n) => n.message).join('; ')}`);
const viewRows = await dataSource.getRepository(RecordViews).find({ order: { recid: 'ASC' } });
log(`  record_views (event-sourced): ${viewRows.map((r) => `${r.recid}=${r.views}`).join(', ')}`);
const popular = await dataSource.getRepository(PopularRecord).find();
log(`  popular_record (sub-event): ${popular.map((r) => `${r.recid} since v${r.since}`).join(', ')}`);
log(
  `  event store version:   v${await views.getVersion()}, halted: ${(await views.halted()) ? 'yes' : 'no'}`,
);
await bus.outbox?.flush();
log(`  outbox rows left:      ${await bus.outbox?.pending()}`);
const deadLetters = await bus.deadLetters.list();
log(`  dead letters:          ${deadLetters.length}`);

if (child !== undefined) {
  child.kill('SIGTERM');
  await once(child, 'exit');
}
await app.close();
const removed = await removeDemoData();
log(
  removed.schema === undefined && removed.keys === 0
    ? '\nleft behind: nothing (SQLite in memory, in-process bus)'
    : `\nremoved what the demo created: ${removed.schema === undefined ? '' : `schema ${removed.schema}, `}${removed.keys} Redis keys under ${removed.prefix}`,
);
