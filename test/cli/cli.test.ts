/**
 * The `commitbus` command line as an operator runs it: a child process on the
 * bus module `test/fixtures/cli-bus.ts` (Redis, and PostgreSQL for the
 * outbox), its output parsed, its exit code and the bus's state checked.
 */
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventBus, RunningWorker } from '../../src/index.js';
import { OrderKeyRecordEntity } from '../../src/ordering/order-key-record.entity.js';
import { OutboxRecordEntity } from '../../src/outbox/outbox-record.entity.js';
import makeBus, { StockMoved } from '../fixtures/cli-bus.js';
import makeStoreModule from '../fixtures/cli-store.js';
import { ITEM_ENTITIES } from '../fixtures/es-items.js';
import { type CliResult, runCli, startCli } from '../helpers/cli-runner.js';
import { recordCreated, recordPublished } from '../helpers/events.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-bus.ts';
// The process id in each schema's name: the same file run from two worktrees at once on the
// one test database must not share a schema (a second run's set-up reset the event store's
// tables between this run's skip and its status: the skip looked undone).
const SCHEMA = `i12cli_cli_${process.pid}`;
const STORE_SCHEMA = `i12cli_store_${process.pid}`;
const { prefix, redis } = redisTestBed('i12cli-cli');
// Each run starts node with tsx (seconds on a busy machine): generous per test.
const CLI_TIMEOUT = 120_000;

let schemaSource: DataSource;
beforeAll(async () => {
  schemaSource = await openSchema(SCHEMA, []);
});
afterAll(async () => {
  await schemaSource.query(`DROP SCHEMA IF EXISTS ${STORE_SCHEMA} CASCADE`);
  await closeSchema(schemaSource);
});

/** The env of the fixture module for the bus named `name`. */
function envOf(name: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...redisEnv(), CLI_PREFIX: prefix, CLI_NAME: name, CLI_PG_SCHEMA: SCHEMA, ...extra };
}

/** The fixture's bus in this process, for seeding and checking. */
const open: { bus: EventBus; dataSource?: DataSource }[] = [];
async function testBus(name: string): Promise<EventBus> {
  Object.assign(process.env, envOf(name));
  const made = await makeBus();
  open.push(made);
  return made.bus;
}
async function startWorker(bus: EventBus): Promise<RunningWorker> {
  return bus.startWorker({ handleSignals: false });
}
afterEach(async () => {
  for (const { bus, dataSource } of open.splice(0)) {
    await bus.close();
    await dataSource?.destroy();
  }
  await redis.del(`${prefix}:fail`);
});

function cli(name: string, args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return runCli(['--module', MODULE, ...args], envOf(name, extra));
}

function json<T>(result: CliResult): T {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const runs = () => redis.lrange(`${prefix}:runs`, 0, -1);

/** Fails the fixture's `announce` and `moveStock` until the test ends (or `heal`). */
const breakHandlers = () => redis.set(`${prefix}:fail`, '1');
const heal = () => redis.del(`${prefix}:fail`);

describe('commitbus status', () => {
  it('reports what the test put on the bus, as JSON and as tables', { timeout: CLI_TIMEOUT }, async () => {
    const bus = await testBus('status');
    await breakHandlers();
    await bus.rules.pause({ handler: 'mailOwner' });
    const worker = await startWorker(bus);
    await bus.publish([recordCreated('s1'), recordCreated('s2'), recordPublished('s3')]);
    await bus.publish(StockMoved.create({ sku: 'S' }));
    await waitFor('parked work, a letter and a halted key', async () => {
      const s = await bus.status();
      return s.parked === 2 && s.deadLetters.count === 1 && s.halted.count === 1 && s.outbox?.pending === 0;
    });
    await worker.close();
    await bus.publish([recordCreated('s4'), recordCreated('s5')]);
    await schemaSource.getRepository(OutboxRecordEntity).insert({
      eventId: 'left-behind',
      createdAt: Date.now() - 30_000,
      registrationOrder: 0,
      handlingKey: 'RECORD.CREATE',
      payload: '{}',
      deliverAt: null,
      orderKey: null,
      orderPosition: null,
    });
    // As bull-board's pause button does.
    const asyncQueue = bus.transport.bullmqQueues?.find((q) => q.name === 'status-async');
    await asyncQueue?.pause();
    try {
      const [asJson, asTable] = await Promise.all([
        cli('status', ['status', '--json']),
        cli('status', ['status']),
      ]);
      const status = json<Awaited<ReturnType<EventBus['status']>>>(asJson);
      expect(status.bus).toEqual({ name: 'status', prefix, transport: 'redis' });
      expect(status.backlog).toMatchObject({ events: 2, ordered: 1, delayed: 0 });
      expect(status.parked).toBe(2);
      expect(status.deadLetters).toEqual({
        count: 1,
        byKind: { handler: 1 },
        byHandler: { announce: 1 },
        dropped: 0,
      });
      expect(status.halted).toMatchObject({ count: 1, first: [{ key: 'sku:S', handler: 'moveStock' }] });
      expect(status.rules).toMatchObject([{ kind: 'pause', handler: 'mailOwner' }]);
      expect(status.handlers.mailOwner).toEqual({
        waiting: 0,
        running: 0,
        retrying: 0,
        parked: 2,
        deadLetters: 0,
      });
      expect(status.outbox?.pending).toBe(1);
      expect(status.outbox?.oldestAgeMs).toBeGreaterThanOrEqual(30_000);
      expect(asTable.code).toBe(0);
      expect(asTable.stdout).toMatch(/backlog \(events to drain\)\s*│\s*2/);
      expect(asTable.stdout).toMatch(/sku:S/);
      expect(status.pausedQueues).toEqual(['status-async']);
      expect(asTable.stdout).toMatch(/dead letters dropped \(retention, so far\)\s*│\s*0/);
      expect(asTable.stdout).toMatch(/paused BullMQ queues \(.*\): status-async/);
    } finally {
      await asyncQueue?.resume();
      await schemaSource.getRepository(OutboxRecordEntity).clear();
    }
  });
});

describe('commitbus dead-letters', () => {
  it('lists, shows, refuses a purge without --yes, re-drives (the handler runs again), then purges', {
    timeout: CLI_TIMEOUT * 2,
  }, async () => {
    const bus = await testBus('letters');
    await breakHandlers();
    const worker = await startWorker(bus);
    await bus.publish([recordPublished('d1'), recordPublished('d2'), recordPublished('d3')]);
    await waitFor('three letters', async () => (await bus.deadLetters.list()).length === 3);
    await worker.close();
    await heal();

    const listed = json<{ id: string; handler: string }[]>(
      await cli('letters', ['dead-letters', 'list', '--handler', 'announce', '--json']),
    );
    expect(listed.map((l) => l.handler)).toEqual(['announce', 'announce', 'announce']);
    const shown = json<{ id: string; reason: string }>(
      await cli('letters', ['dead-letters', 'show', listed[0]?.id ?? '', '--json']),
    );
    expect(shown).toMatchObject({ id: listed[0]?.id, reason: 'exhausted' });

    const refused = await cli('letters', ['dead-letters', 'purge', '--handler', 'announce']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/add --yes/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(await bus.deadLetters.list()).toHaveLength(3);

    const redriven = json<{ redriven: number; failed: unknown[] }>(
      await cli('letters', ['dead-letters', 'redrive', '--handler', 'announce', '--limit', '2', '--json']),
    );
    expect(redriven).toEqual({ redriven: 2, failed: [] });
    await startWorker(bus);
    await waitFor(
      'the two re-driven letters to run',
      async () => (await runs()).filter((r) => r.startsWith('announce:')).length === 2,
    );
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual([listed[2]?.id]);

    const purged = json<{ purged: number }>(
      await cli('letters', ['dead-letters', 'purge', '--all', '--yes', '--json']),
    );
    expect(purged).toEqual({ purged: 1 });
    expect(await bus.deadLetters.list()).toEqual([]);
  });
});

describe('commitbus pause and resume', () => {
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

describe('commitbus ordering', () => {
  it('lists a halted key, refuses a skip without --yes, and re-drives it', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await testBus('ordering');
    await breakHandlers();
    await startWorker(bus);
    await bus.publish([StockMoved.create({ sku: 'H' }), StockMoved.create({ sku: 'H' })]);
    await waitFor('sku:H to halt', async () => (await bus.ordering.halted()).length === 1);
    await heal();
    const halted = json<{ key: string; handler: string; waiting: number }[]>(
      await cli('ordering', ['ordering', 'halted', '--json']),
    );
    expect(halted).toMatchObject([{ key: 'sku:H', handler: 'moveStock', waiting: 2 }]);
    const refused = await cli('ordering', ['ordering', 'skip', 'sku:H']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/add --yes/);
    expect(json(await cli('ordering', ['ordering', 'redrive', 'sku:H', '--json']))).toEqual({
      key: 'sku:H',
      resumed: 1,
    });
    await waitFor(
      'both events of sku:H to run',
      async () => (await runs()).filter((r) => r === 'moveStock:H').length === 2,
    );
    expect(await bus.ordering.halted()).toEqual([]);
  });
});

describe('commitbus ordering rebase', () => {
  it('refuses without --yes, re-bases a key waiting for a lost position, and lists the re-base', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await testBus('rebase');
    const refused = await cli('rebase', ['ordering', 'rebase', 'sku:R']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/add --yes/);
    // Redis lost the lane while commitbus_order_keys says 5: the next event gets position 6.
    await schemaSource.getRepository(OrderKeyRecordEntity).insert({ orderKey: 'sku:R', lastPosition: 5 });
    await bus.publish(StockMoved.create({ sku: 'R' }));
    expect(json(await cli('rebase', ['ordering', 'rebase', 'sku:R', '--yes', '--json']))).toEqual({
      key: 'sku:R',
      from: 1,
      to: 6,
    });
    await startWorker(bus);
    await waitFor('the event of sku:R to run', async () => (await runs()).includes('moveStock:R'));
    expect(json(await cli('rebase', ['ordering', 'rebased', '--json']))).toMatchObject({
      count: 1,
      recent: [{ key: 'sku:R', from: 1, to: 6, why: 'operator' }],
    });
  });
});

describe('commitbus worker', () => {
  it("runs the module's bus and, on SIGTERM, finishes the handler in flight and exits 0", {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const publisher = await testBus('worker');
    const worker = startCli(['worker', MODULE], envOf('worker', { CLI_SLOW_MS: '1500' }));
    try {
      await waitFor('the worker to start', () => worker.stdout().includes('commitbus worker: bus worker'), {
        timeoutMs: 30_000,
        describe: () => worker.stderr(),
      });
      await publisher.publish(recordCreated('w1'));
      await waitFor('the slow handler to start', async () => (await runs()).includes('mailOwner-start:w1'));
      worker.child.kill('SIGTERM');
      const exited = await worker.exited;
      expect(exited.code).toBe(0);
      expect(exited.stdout).toMatch(/SIGTERM, finishing the work in flight\ncommitbus worker: stopped\n$/);
      expect(await runs()).toContain('mailOwner:w1');
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  });
});

describe('commitbus errors', () => {
  it('says what to do, with exit code 1 and no stack, for a missing module or one with no bus', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const [none, missing, noBus] = await Promise.all([
      runCli(['status'], { COMMITBUS_MODULE: '' }),
      runCli(['--module', 'test/fixtures/nowhere.ts', 'status']),
      runCli(['--module', 'test/fixtures/es-items.ts', 'status', '--json']),
    ]);
    for (const result of [none, missing, noBus]) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(none.stderr).toMatch(/pass --module <path>.*or set COMMITBUS_MODULE/);
    expect(missing.stderr).toMatch(/nowhere\.ts does not exist/);
    expect(noBus.stderr).toMatch(/exports no bus: export it as `export default bus`/);
  });
});

describe('commitbus event-store', () => {
  const STORE_MODULE = 'test/fixtures/cli-store.ts';
  const storeCli = (args: string[]) =>
    runCli(['--module', STORE_MODULE, 'event-store', ...args], { CLI_PG_SCHEMA: STORE_SCHEMA });

  it('shows the halted event, refuses a skip without --yes, skips it, and replays history', {
    timeout: CLI_TIMEOUT * 2,
  }, async () => {
    await (await openSchema(STORE_SCHEMA, ITEM_ENTITIES)).destroy();
    process.env.CLI_PG_SCHEMA = STORE_SCHEMA;
    const { eventStore, dataSource } = await makeStoreModule();
    try {
      await eventStore.start();
      await eventStore.dispatch('ITEM.RESULT', { set: [{ id: 'a', name: 'A', qty: 1 }] });
      await eventStore.dispatch(
        'ITEM.RESULT',
        { ins: [{ id: 'a', name: 'again', qty: 2 }] },
        { wait: false },
      );
      await waitFor('the store to halt', async () => (await eventStore.halted()) !== undefined);
    } finally {
      await eventStore.close();
      await dataSource.destroy();
    }
    const halted = json<{ v: number; status: string }>(await storeCli(['halted', '--json']));
    expect(halted).toMatchObject({ v: 2 });
    expect(json(await storeCli(['status', '--json']))).toMatchObject({
      version: 1,
      queued: 1,
      halted: { v: 2 },
    });
    const refused = await storeCli(['skip', '2']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/add --yes/);
    expect(json(await storeCli(['skip', '2', '--yes', '--by', 'ops', '--json']))).toMatchObject({
      v: 2,
      status: 'skipped',
    });
    expect(json(await storeCli(['status', '--json']))).toEqual({ version: 2, queued: 0, halted: null });
    expect(json(await storeCli(['replay', '--json']))).toEqual({ models: ['items'], events: 1, version: 2 });
  });
});

describe('commitbus router subscribers and tokens', () => {
  it("lists the router's subscribers and tokens on the module's Redis, never a secret", {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await testBus('router');
    await bus.router.tokens.addToken({
      name: 'shop',
      hash: 'hash-of-shop-token',
      hint: 'shop--5b0e',
      createdAt: 1_700_000_000_000,
    });
    await bus.router.subscribers.saveSubscriber({
      name: 'shop',
      callback: 'https://shop.test/hooks',
      uuid: 'shop-hooks-credential',
      maxEvents: 10,
      timeoutMs: 500,
      topics: ['orders'],
    });
    await bus.router.subscribers.addSigningSecret('shop', 'whsec_c2VjcmV0LXNpZ25pbmcta2V5');
    const [subscribers, tokens] = await Promise.all([
      cli('router', ['router', 'subscribers', '--json']),
      cli('router', ['router', 'tokens', '--json']),
    ]);
    expect(json(subscribers)).toEqual([
      expect.objectContaining({
        name: 'shop',
        topics: ['orders'],
        paused: false,
        signed: true,
        credentials: true,
      }),
    ]);
    expect(json(tokens)).toEqual([
      // The key GET /api_tokens lists, which DELETE /api_tokens/:token takes.
      {
        name: 'shop',
        key: 'shop--5b0e...hash-of-shop',
        hint: 'shop--5b0e',
        createdAt: '2023-11-14T22:13:20.000Z',
      },
    ]);
    expect(subscribers.stdout + tokens.stdout).not.toMatch(/whsec_|hash-of-shop-token|shop-hooks-credential/);
  });
});
