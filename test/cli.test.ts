/**
 * The `commitbus` command line as an operator runs it: a child process on the
 * bus module `test/fixtures/cli-bus.ts` (Redis, and PostgreSQL for the
 * outbox), its output parsed, its exit code and the bus's state checked.
 */
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventBus, RunningWorker } from '../src/index.js';
import { OutboxRecordEntity } from '../src/outbox/outbox-record.entity.js';
import makeBus, { StockMoved } from './fixtures/cli-bus.js';
import { type CliResult, runCli, startCli } from './helpers/cli-runner.js';
import { recordCreated, recordPublished } from './helpers/events.js';
import { openSchema } from './helpers/postgres.js';
import { redisEnv } from './helpers/redis.js';
import { redisTestBed } from './helpers/redis-test-bed.js';
import { waitFor } from './helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-bus.ts';
const SCHEMA = 'i12cli_cli';
const { prefix, redis } = redisTestBed('i12cli-cli');
const CLI_TIMEOUT = 60_000;

let schemaSource: DataSource;
beforeAll(async () => {
  schemaSource = await openSchema(SCHEMA, []);
});
afterAll(async () => {
  await schemaSource.destroy();
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
    try {
      const [asJson, asTable] = await Promise.all([
        cli('status', ['status', '--json']),
        cli('status', ['status']),
      ]);
      const status = json<Awaited<ReturnType<EventBus['status']>>>(asJson);
      expect(status.bus).toEqual({ name: 'status', prefix, transport: 'bullmq' });
      expect(status.backlog).toMatchObject({ events: 2, ordered: 1, delayed: 0 });
      expect(status.parked).toBe(2);
      expect(status.deadLetters).toEqual({ count: 1, byKind: { handler: 1 }, byHandler: { announce: 1 } });
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
    } finally {
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
