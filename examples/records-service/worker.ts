// A worker process: handles the example's events until SIGINT/SIGTERM.
// Run it with `npm run worker`, which execs `node --import tsx
// examples/records-service/worker.ts` so SIGTERM reaches it: on the demo's
// SQLite file (DEMO_SQLITE_FILE, shared through WAL with the process that
// publishes), or on PostgreSQL with DATABASE_URL (and Redis with REDIS_URL).
import { createApp } from './app.js';

const app = await createApp();
if (app.bus.runsOn.inProcess) {
  console.error(
    "the worker needs a database other processes share (a SQLite file, DATABASE_URL or REDIS_URL): on SQLite in this process's memory, events never leave the publisher",
  );
  process.exit(2);
}
const worker = await app.bus.startWorker();
// Where the bus lives as the transport says it: never a password.
const { name } = app.bus.config;
const where = app.bus.runsOn.location ?? app.bus.runsOn.transport;
console.log(`[worker ${process.pid}] handling bus ${name} (on ${where}); Ctrl-C to stop`);
process.send?.('ready');
await worker.stopped;
await app.dataSource.destroy();
console.log(`[worker ${process.pid}] stopped after finishing in-flight work`);
