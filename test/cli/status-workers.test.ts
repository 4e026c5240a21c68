/**
 * `commitbus status` shows the bus's workers: run as an operator runs it (a
 * child process on the SQL fixture module, PostgreSQL alone), while a
 * worker of the bus runs in this process, it lists that worker alive with
 * its host, pid and version, as JSON and as a table; once the worker has
 * closed, it says none is alive.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusStatus } from '../../src/index.js';
import makeSqlBus, { cliSqlTables } from '../fixtures/cli-sql-bus.js';
import { type CliResult, runCli } from '../helpers/cli-runner.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-sql-bus.ts';
const SCHEMA = `cli_workers_${process.pid}`;
const CLI_TIMEOUT = 120_000;
const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const ENV = {
  REDIS_URL: '',
  COMMITBUS_REDIS_URL: '',
  REDIS_CLUSTER_NODES: '',
  COMMITBUS_REDIS_CLUSTER: '',
  COMMITBUS_TRANSPORT: 'sql',
  COMMITBUS_SQL_POLL_MS: '50',
  COMMITBUS_WORKERS_BEAT_EVERY_MS: '100',
  CLI_NAME: 'workers',
  CLI_PG_SCHEMA: SCHEMA,
};

let schemaSource: DataSource;
beforeAll(async () => {
  schemaSource = await openSchema(SCHEMA, []);
  for (const statement of cliSqlTables(SCHEMA)) await schemaSource.query(statement);
});
afterAll(async () => {
  await closeSchema(schemaSource);
});

const cli = (args: string[]): Promise<CliResult> => runCli(['--module', MODULE, ...args], ENV);

describe('commitbus status, workers', () => {
  it('lists a running worker alive, and none once it closed', { timeout: CLI_TIMEOUT }, async () => {
    Object.assign(process.env, ENV);
    const { bus, dataSource } = await makeSqlBus();
    try {
      const worker = await bus.startWorker({ handleSignals: false });
      await waitFor('the worker registered', async () => (await bus.status()).workers.alive === 1);
      const [asJson, asTable] = await Promise.all([cli(['status', '--json']), cli(['status'])]);
      expect(asJson.code).toBe(0);
      const { workers } = JSON.parse(asJson.stdout) as BusStatus;
      expect(workers).toMatchObject({
        alive: 1,
        goneAfterMs: 15_000,
        list: [
          { host: hostname(), pid: process.pid, version: VERSION, transport: 'sql-postgres', alive: true },
        ],
      });
      expect(asTable.code).toBe(0);
      expect(asTable.stdout).toContain('workers: 1 alive (gone after 15s without a beat)');
      const row = asTable.stdout
        .split('\n')
        .find((line) => line.includes(workers.list[0]?.id.slice(0, 8) ?? '?'));
      expect(row).toMatch(
        new RegExp(`alive\\s*│\\s*${hostname()}\\s*│\\s*${process.pid}\\s*│\\s*${VERSION}`),
      );

      await worker.close();
      const after = await cli(['status']);
      expect(after.code).toBe(0);
      expect(after.stdout).toContain('workers: none alive (gone after 15s without a beat)');
    } finally {
      await bus.close();
      await dataSource.destroy();
    }
  });
});
