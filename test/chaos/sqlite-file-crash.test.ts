/**
 * Crash test of the embedded transport on a file, as services run it: a
 * publisher process and two worker processes on one `sqliteTransport({ file
 * })` each (picked by `transportFromEnv()` from `COMMITBUS_TRANSPORT=sqlite`
 * and `COMMITBUS_SQLITE_FILE`, SQLite's default 5 s busy timeout), all three
 * started at once on a file that does not exist yet (so they race to create
 * its tables), SIGKILLed at random and restarted until the publisher has
 * published every event. Idempotent handlers record their runs in the
 * application's own SQLite file. Then every event whose publish resolved must
 * have been handled by every handler, the idempotent ones exactly once (and no
 * event more than once by them), the processes must have ended only by the
 * test's kills (no crash on `SQLITE_BUSY`), and the bus's events, jobs and
 * dead letters must be gone from the file.
 *
 * `npm test` runs FILE_CHAOS_EVENTS=100; `npm run test:chaos` 1,000.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMITBUS_ENTITIES } from '../../src/index.js';
import { FILE_CHAOS_HANDLERS, FileChaosHandled } from '../fixtures/sqlite-file-chaos-app.js';
import { bundleChaosProcesses, type ChaosBundle } from '../helpers/chaos-build.js';
import { ChaosCluster } from '../helpers/chaos-cluster.js';
import { waitFor } from '../helpers/wait-for.js';

const EVENTS = Number(process.env.FILE_CHAOS_EVENTS ?? 100);
const LARGE = EVENTS > 200;
const KILL_MIN_MS = 200;
const KILL_MAX_MS = 600;
const PUBLISH_TIMEOUT_MS = LARGE ? 300_000 : 60_000;
const SETTLE_TIMEOUT_MS = LARGE ? 120_000 : 30_000;
const BUS = 'filechaos';

let bundle: ChaosBundle | undefined;
beforeAll(async () => {
  bundle = await bundleChaosProcesses({
    publisher: 'sqlite-file-chaos-publisher.ts',
    worker: 'sqlite-file-chaos-worker.ts',
  });
});

const id = randomBytes(4).toString('hex');
const files = {
  transport: join(tmpdir(), `commitbus-filechaos-${id}.sqlite`),
  app: join(tmpdir(), `commitbus-filechaos-app-${id}.sqlite`),
  published: join(tmpdir(), `commitbus-filechaos-${id}.published`),
};
let cluster: ChaosCluster | undefined;
const dataSources: DataSource[] = [];
afterAll(async () => {
  await cluster?.killAll();
  await Promise.all(dataSources.map((ds) => (ds.isInitialized ? ds.destroy() : undefined)));
  await bundle?.remove();
  const all = [files.published, ...[files.transport, files.app].flatMap((f) => [f, `${f}-wal`, `${f}-shm`])];
  await Promise.all(all.map((file) => rm(file, { force: true })));
});

/** Opens a DataSource of the test's on `database`. */
async function open(database: string, synchronize: boolean): Promise<DataSource> {
  const entities = synchronize ? [FileChaosHandled, ...COMMITBUS_ENTITIES] : [];
  const ds = await new DataSource({
    type: 'better-sqlite3',
    database,
    enableWAL: true,
    entities,
    synchronize,
  }).initialize();
  dataSources.push(ds);
  return ds;
}

/** The events whose publish resolved, by id. */
async function committed(): Promise<Set<string>> {
  const text = await readFile(files.published, 'utf8').catch(() => '');
  return new Set(
    text
      .split('\n')
      .filter((line) => line.includes(' '))
      .map((line) => line.split(' ')[1] as string),
  );
}

/** Runs per handler and event id, from the application's file. */
async function handled(app: DataSource): Promise<Map<string, Map<string, number>>> {
  const rows = await app.query<{ handler: string; event_id: string; n: number }[]>(
    'SELECT handler, event_id, COUNT(*) AS n FROM file_chaos_handled GROUP BY handler, event_id',
  );
  const byHandler = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const of = byHandler.get(row.handler) ?? new Map<string, number>();
    of.set(row.event_id, Number(row.n));
    byHandler.set(row.handler, of);
  }
  return byHandler;
}

/** The bus's rows left in the transport's file. */
async function left(transport: DataSource): Promise<{ events: number; jobs: number; deadLetters: number }> {
  const count = async (table: string) =>
    Number((await transport.query(`SELECT COUNT(*) AS n FROM ${table} WHERE bus = ?`, [BUS]))[0]?.n ?? 0);
  return {
    events: await count('commitbus_events'),
    jobs: await count('commitbus_jobs'),
    deadLetters: await count('commitbus_dead_letters'),
  };
}

describe('the embedded transport on one SQLite file, processes SIGKILLed', () => {
  it(
    `${EVENTS} events published by a killed publisher, handled by two killed workers: none lost, idempotent ones exactly once, nothing left`,
    async () => {
      if (bundle === undefined) throw new Error('the processes are bundled in beforeAll');
      const app = await open(files.app, true);
      const processes = new ChaosCluster(
        bundle,
        {
          COMMITBUS_TRANSPORT: 'sqlite',
          COMMITBUS_SQLITE_FILE: files.transport,
          COMMITBUS_SQL_POLL_MS: '100',
          FILE_CHAOS_APP_DB: files.app,
          FILE_CHAOS_EVENTS: String(EVENTS),
          FILE_CHAOS_PUBLISHED: files.published,
        },
        { minUptimeMs: 200 },
      );
      cluster = processes;
      const startedAt = Date.now();
      await processes.start(2);
      await processes.killRandomlyUntilPublished(KILL_MIN_MS, KILL_MAX_MS, PUBLISH_TIMEOUT_MS);
      const publishedAt = Date.now();
      processes.addWorker();
      const transport = await open(files.transport, false);

      const finished = async () => {
        const ids = await committed();
        const runs = await handled(app);
        const rest = await left(transport);
        return (
          ids.size >= EVENTS &&
          rest.events + rest.jobs === 0 &&
          FILE_CHAOS_HANDLERS.every((spec) => [...ids].every((e) => (runs.get(spec.name)?.get(e) ?? 0) > 0))
        );
      };
      await waitFor(
        'every published event handled by every handler, the bus tables empty',
        async () => {
          return processes.hasProblems || (await finished());
        },
        {
          timeoutMs: SETTLE_TIMEOUT_MS,
          intervalMs: 100,
          describe: async () => ({ ...(await left(transport)), ...processes.counts }),
        },
      );
      processes.check();
      const settledAt = Date.now();

      const ids = await committed();
      const runs = await handled(app);
      const summary = Object.fromEntries(
        FILE_CHAOS_HANDLERS.map((spec) => {
          const of = runs.get(spec.name) ?? new Map<string, number>();
          return [
            spec.name,
            {
              missing: [...ids].filter((e) => !of.has(e)).length,
              moreThanOnce: spec.idempotent ? [...of.values()].filter((n) => n > 1).length : 0,
            },
          ];
        }),
      );
      console.log(
        `SQLite file crash test: ${ids.size} published, ${JSON.stringify(processes.counts)}, ` +
          `${JSON.stringify(summary)}, published in ${publishedAt - startedAt} ms, settled in ${settledAt - publishedAt} ms`,
      );
      expect({ published: ids.size, handlers: summary, left: await left(transport) }).toEqual({
        published: EVENTS,
        handlers: Object.fromEntries(
          FILE_CHAOS_HANDLERS.map((spec) => [spec.name, { missing: 0, moreThanOnce: 0 }]),
        ),
        left: { events: 0, jobs: 0, deadLetters: 0 },
      });
      expect(processes.counts.workersKilled + processes.counts.publisherKilled).toBeGreaterThan(0);
      const exits = await processes.stopWorkers();
      console.log(`SQLite file crash test: workers stopped in ${Date.now() - settledAt} ms`);
      expect(
        exits.filter((e) => e.exit.code !== 0).map((e) => [e.label, e.exit, e.stderr.slice(-800)]),
      ).toEqual([]);
    },
    PUBLISH_TIMEOUT_MS + SETTLE_TIMEOUT_MS + 30_000,
  );
});
