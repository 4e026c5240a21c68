/**
 * The `commitbus` command line on a bus module whose bus runs on the SQL
 * transport over PostgreSQL alone (`test/fixtures/cli-sql-bus.ts`, no
 * Redis): `worker` as a real child process handling what this process
 * publishes and stopping gracefully on SIGTERM, `status`, `dead-letters
 * list` and `redrive`, `pause` and `resume`, each checked on the database.
 */
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BusStatus, EventBus, RunningWorker } from '../../src/index.js';
import makeSqlBus, { cliSqlTables } from '../fixtures/cli-sql-bus.js';
import { type CliResult, runCli, startCli } from '../helpers/cli-runner.js';
import { recordCreated, recordPublished } from '../helpers/events.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-sql-bus.ts';
// The process id in the schema's name: the same file run from two worktrees at once must not share it.
const SCHEMA = `cli_sql_${process.pid}`;
// Each run starts node with tsx (seconds on a busy machine): generous per test.
const CLI_TIMEOUT = 120_000;
/** No Redis anywhere: a module that reached for one would fail. */
const NO_REDIS = {
  REDIS_URL: '',
  COMMITBUS_REDIS_URL: '',
  REDIS_CLUSTER_NODES: '',
  COMMITBUS_REDIS_CLUSTER: '',
};

let schemaSource: DataSource;
beforeAll(async () => {
  schemaSource = await openSchema(SCHEMA, []);
  for (const statement of cliSqlTables(SCHEMA)) await schemaSource.query(statement);
});
afterAll(async () => {
  await closeSchema(schemaSource);
});

/** The env of the fixture module for the bus named `name`. */
function envOf(name: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...NO_REDIS,
    COMMITBUS_TRANSPORT: 'sql',
    COMMITBUS_SQL_POLL_MS: '50',
    CLI_NAME: name,
    CLI_PG_SCHEMA: SCHEMA,
    ...extra,
  };
}

/** The fixture's bus in this process, for seeding and checking. */
const open: { bus: EventBus; dataSource: DataSource }[] = [];
async function testBus(name: string): Promise<EventBus> {
  Object.assign(process.env, envOf(name));
  const made = await makeSqlBus();
  open.push(made);
  return made.bus;
}
const startWorker = (bus: EventBus): Promise<RunningWorker> => bus.startWorker({ handleSignals: false });
afterEach(async () => {
  for (const { bus, dataSource } of open.splice(0)) {
    await bus.close();
    await dataSource.destroy();
  }
  await schemaSource.query(`DELETE FROM ${SCHEMA}.cli_fail`);
});

function cli(name: string, args: string[]): Promise<CliResult> {
  return runCli(['--module', MODULE, ...args], envOf(name));
}

function json<T>(result: CliResult): T {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const runs = async (): Promise<string[]> =>
  (await schemaSource.query<{ what: string }[]>(`SELECT what FROM ${SCHEMA}.cli_runs ORDER BY id`)).map(
    (r) => r.what,
  );
const breakAnnounce = () => schemaSource.query(`INSERT INTO ${SCHEMA}.cli_fail (id) VALUES (1)`);
const heal = () => schemaSource.query(`DELETE FROM ${SCHEMA}.cli_fail`);

describe('commitbus worker on the SQL transport', () => {
  it('handles what another process publishes and, on SIGTERM, finishes the handler in flight and exits 0', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const publisher = await testBus('worker');
    const worker = startCli(['worker', MODULE], envOf('worker', { CLI_SLOW_MS: '1500' }));
    try {
      await waitFor('the worker to start', () => worker.stdout().includes('commitbus worker: bus worker'), {
        timeoutMs: 60_000,
        describe: () => worker.stderr(),
      });
      expect(worker.stdout()).toContain('transport sql-postgres');
      await publisher.publish([recordCreated('w1'), recordPublished('w2')]);
      await waitFor('the slow handler to start', async () => (await runs()).includes('mailOwner-start:w1'), {
        describe: runs,
      });
      worker.child.kill('SIGTERM');
      const exited = await worker.exited;
      expect(exited.code).toBe(0);
      expect(exited.stdout).toMatch(/SIGTERM, finishing the work in flight\ncommitbus worker: stopped\n$/);
      expect((await runs()).filter((r) => r.endsWith(':w1') || r.endsWith(':w2')).sort()).toEqual([
        'announce:w2',
        'indexRecord:w1',
        'mailOwner-start:w1',
        'mailOwner:w1',
      ]);
      expect((await publisher.status()).backlog.events).toBe(0);
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  });
});

describe('commitbus status on the SQL transport', () => {
  it("reads the bus's tables: backlog, rules, parked work and dead letters", {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await testBus('status');
    await breakAnnounce();
    await bus.rules.pause({ handler: 'mailOwner' });
    const worker = await startWorker(bus);
    await bus.publish([recordCreated('s1'), recordPublished('s2')]);
    await waitFor('parked work and a letter', async () => {
      const s = await bus.status();
      return s.parked === 1 && s.deadLetters.count === 1;
    });
    await worker.close();
    await bus.publish([recordCreated('s3'), recordCreated('s4')]);
    const [asJson, asTable] = await Promise.all([
      cli('status', ['status', '--json']),
      cli('status', ['status']),
    ]);
    const status = json<BusStatus>(asJson);
    expect(status.bus).toMatchObject({ name: 'status', transport: 'sql-postgres' });
    expect(status.backlog).toMatchObject({ events: 2, delayed: 0 });
    expect(status.parked).toBe(1);
    expect(status.deadLetters).toEqual({
      count: 1,
      byKind: { handler: 1 },
      byHandler: { announce: 1 },
      dropped: 0,
    });
    expect(status.rules).toMatchObject([{ kind: 'pause', handler: 'mailOwner' }]);
    expect(status.handlers.mailOwner).toMatchObject({ parked: 1 });
    expect(asTable.code).toBe(0);
    expect(asTable.stdout).toMatch(/transport sql-postgres/);
    expect(asTable.stdout).toMatch(/backlog \(events to drain\)\s*│\s*2/);
  });
});

describe('commitbus dead-letters on the SQL transport', () => {
  it('lists the letters and re-drives them: the handler runs again and the letters are gone', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await testBus('letters');
    await breakAnnounce();
    const worker = await startWorker(bus);
    await bus.publish([recordPublished('d1'), recordPublished('d2'), recordPublished('d3')]);
    await waitFor('three letters', async () => (await bus.deadLetters.list()).length === 3);
    await worker.close();
    await heal();

    const listed = json<{ id: string; handler: string; reason: string }[]>(
      await cli('letters', ['dead-letters', 'list', '--handler', 'announce', '--json']),
    );
    expect(listed.map((l) => [l.handler, l.reason])).toEqual([
      ['announce', 'exhausted'],
      ['announce', 'exhausted'],
      ['announce', 'exhausted'],
    ]);
    const redriven = json<{ redriven: number; failed: unknown[] }>(
      await cli('letters', ['dead-letters', 'redrive', '--handler', 'announce', '--json']),
    );
    expect(redriven).toEqual({ redriven: 3, failed: [] });
    expect(await bus.deadLetters.list()).toEqual([]);
    await startWorker(bus);
    await waitFor('the three re-driven letters to run', async () => {
      const ran = (await runs()).filter((r) => /^announce:d\d$/.test(r));
      return ran.length === 3;
    });
    expect((await runs()).filter((r) => /^announce:d\d$/.test(r)).sort()).toEqual([
      'announce:d1',
      'announce:d2',
      'announce:d3',
    ]);
  });
});

describe('commitbus pause and resume on the SQL transport', () => {
  it("a pause set by the CLI parks the running worker's work; resume delivers it", {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await testBus('rules');
    await startWorker(bus);
    expect(json(await cli('rules', ['pause', 'mailOwner', '--json']))).toEqual({
      target: { handler: 'mailOwner' },
      changed: true,
    });
    // Already paused (by the CLI); setting it here also reloads this process's worker at once.
    expect(await bus.rules.pause({ handler: 'mailOwner' })).toBe(false);
    await bus.publish(recordCreated('r1'));
    await waitFor('the work to be parked', async () => (await bus.rules.parkedCount('mailOwner')) === 1);
    expect(await runs()).not.toContain('mailOwner:r1');
    const resumed = await cli('rules', ['resume', 'mailOwner']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'handler mailOwner resumed\n' });
    await waitFor('the parked work to run', async () => (await runs()).includes('mailOwner:r1'));
    expect(await bus.rules.parkedCount('mailOwner')).toBe(0);
  });
});
