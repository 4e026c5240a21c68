// `npm run demo`: the records service end to end. Without environment it runs
// on the embedded default: a SQLite file (`.commitbus-demo.sqlite` in the
// current directory, or DEMO_SQLITE_FILE) holding the app's tables, the
// event store's and the bus's, whose SQL transport writes each unit of work's
// events in its transaction. Stopped at any moment (`kill -9` too), a rerun
// resumes: it skips the steps done (demo-steps.ts), its worker handles what
// was committed and not handled, and it ends with the same summary; the file
// goes once a run finished. With REDIS_URL and DATABASE_URL it runs on
// Redis + PostgreSQL, with the worker as a separate process, and does not
// resume: it removes what it created there (its schema and Redis keys)
// before and after.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Event } from '../../src/index.js';
import { createApp, demoSqliteFile } from './app.js';
import { removeDemoData, removeDemoFile } from './cleanup.js';
import { markFinished, readProgress, resumeLine, unhandledWork } from './demo-progress.js';
import { runDemoSteps } from './demo-steps.js';
import { printSummary } from './demo-summary.js';

const log = (line: string) => console.log(line);
const onPublished = (events: readonly Event[]) => {
  for (const e of events) log(`  published  ${e.handlingKey.padEnd(15)} ${e.id}`);
};
const file = demoSqliteFile();
const found = file !== undefined && existsSync(file);
// Redis + PostgreSQL: a run that was stopped half-way left its schema and keys: start from none.
// A SQLite file gone: whatever SQLite kept beside it belongs to no database now.
if (file === undefined) await removeDemoData();
else if (!found) removeDemoFile(file);
let app = await createApp(process.env, onPublished);
let progress = await readProgress(app.dataSource);
let resuming = found;
if (file !== undefined && progress.finished) {
  // Its run finished and was stopped while removing the file: nothing to resume.
  log('found the file of a finished run: starting fresh');
  await app.close();
  removeDemoFile(file);
  app = await createApp(process.env, onPublished);
  progress = await readProgress(app.dataSource);
  resuming = false;
}
const { bus, views } = app;
const onRedis = bus.runsOn.transport === 'redis';
// The file as the cwd names it, or its whole path when it is elsewhere.
const inCwd = file === undefined ? undefined : relative(process.cwd(), file);
const shown = inCwd === undefined || inCwd.startsWith('..') ? file : inCwd;
log(
  `commitbus demo on ${onRedis ? 'Redis + PostgreSQL' : shown === undefined ? 'PostgreSQL (SQL transport)' : `the embedded default (SQLite file ${shown}, SQL transport)`}\n`,
);
if (resuming) log(resumeLine(progress, await unhandledWork(app)));

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

await runDemoSteps(app, progress.done, log);

// Handlers run on the worker (a separate process on Redis); wait until all is handled.
const started = Date.now();
await views.waitForQueue();
await bus.whenIdle(15_000);
log(`\nall handled ${Date.now() - started} ms after the last commit:`);
await printSummary(app, log);

if (child !== undefined) {
  child.kill('SIGTERM');
  await once(child, 'exit');
}
if (file !== undefined) await markFinished(app);
await app.close();
if (file !== undefined) {
  removeDemoFile(file);
  log(`\nremoved ${shown} (and the files beside it): the run finished, so the next one starts fresh`);
} else {
  const removed = await removeDemoData();
  const what = [
    ...(removed.schema === undefined ? [] : [`schema ${removed.schema}`]),
    ...(onRedis ? [`${removed.keys} Redis keys under ${removed.prefix}`] : []),
  ];
  log(`\nremoved what the demo created: ${what.join(', ')}`);
}
