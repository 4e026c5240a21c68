/**
 * The CLI at scale, as an operator runs it: `--dry-run` on the dead-letter,
 * rule and ordering commands counts and changes nothing; contradictory flags
 * and unknown names are refused; lists end with an "N of M" footer, oldest
 * or newest first.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/index.js';
import makeBus, { StockMoved } from '../fixtures/cli-bus.js';
import { type CliResult, runCli } from '../helpers/cli-runner.js';
import { recordPublished } from '../helpers/events.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-bus.ts';
const { prefix, redis } = redisTestBed('i20cli-dry');
const CLI_TIMEOUT = 180_000;

function envOf(name: string): Record<string, string> {
  return { ...redisEnv(), CLI_PREFIX: prefix, CLI_NAME: name };
}

const open: EventBus[] = [];
afterAll(async () => {
  for (const bus of open.splice(0)) await bus.close();
  await redis.del(`${prefix}:fail`);
});

const cli = (args: string[], name = 'dry'): Promise<CliResult> =>
  runCli(['--module', MODULE, ...args], envOf(name));

function refused(result: CliResult, message: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('commitbus dead-letters at scale', () => {
  it('dry runs count without changing anything; contradictions and typos are refused; lists say N of M', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    Object.assign(process.env, envOf('dry'));
    const { bus } = await makeBus();
    open.push(bus);
    await redis.set(`${prefix}:fail`, '1');
    const worker = await bus.startWorker({ handleSignals: false });
    await bus.publish([recordPublished('d1'), recordPublished('d2'), recordPublished('d3')]);
    await waitFor(
      'three letters',
      async () => (await bus.deadLetters.list({ handler: 'announce' })).length === 3,
    );
    await worker.close();
    const before = await bus.deadLetters.list();

    const [redrive, purge, both, typo, reason, newest, limited] = await Promise.all([
      cli(['dead-letters', 'redrive', '--handler', 'announce', '--dry-run', '--json']),
      cli(['dead-letters', 'purge', '--all', '--dry-run']),
      cli(['dead-letters', 'redrive', '--all', '--handler', 'announce']),
      cli(['dead-letters', 'list', '--handler', 'anounce']),
      cli(['dead-letters', 'purge', '--reason', 'tired', '--yes']),
      cli(['dead-letters', 'list', '--handler', 'announce', '--newest-first']),
      cli(['dead-letters', 'list', '--handler', 'announce', '--limit', '1']),
    ]);

    expect(redrive).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(redrive.stdout)).toEqual({ wouldRedrive: 3 });
    expect(purge).toMatchObject({ code: 0, stderr: '' });
    expect(purge.stdout).toBe(`would purge ${before.length} dead letter(s) (dry run: nothing changed)\n`);
    refused(both, /redrive --all takes every letter: drop --all/);
    refused(typo, /--handler "anounce": no handler has that name .*handlers: .*announce/);
    refused(reason, /--reason must be one of exhausted/);
    expect(newest.code).toBe(0);
    expect(newest.stdout).toMatch(/3 of 3 dead letter\(s\) \(newest first\)\n$/);
    const ids = [...newest.stdout.matchAll(/│ (\S+\.announce) /g)].map((m) => m[1]);
    const byAge = before.filter((l) => l.handler === 'announce').map((l) => l.id);
    expect(ids).toEqual([...byAge].reverse());
    expect(limited.stdout).toMatch(
      /1 of 3 dead letter\(s\) \(oldest first; --limit or --newest-first for others\)\n$/,
    );

    // Nothing was re-driven or purged.
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual(before.map((l) => l.id));
  });

  it('pause, block, ordering redrive and skip with --dry-run say what they would do and change nothing', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    Object.assign(process.env, envOf('dry-rules'));
    const { bus } = await makeBus();
    open.push(bus);
    await redis.set(`${prefix}:fail`, '1');
    const worker = await bus.startWorker({ handleSignals: false });
    await bus.publish([StockMoved.create({ sku: 'D' }), StockMoved.create({ sku: 'D' })]);
    await waitFor('sku:D to halt', async () => (await bus.ordering.halted()).length === 1);
    await worker.close();
    await bus.rules.block({ handlingKey: 'RECORD.CREATE' });

    const [pause, block, unblock, redrive, skip, notHalted, halted] = await Promise.all([
      cli(['pause', 'mailOwner', '--dry-run', '--json'], 'dry-rules'),
      cli(['block', 'RECORD.CREATE', '--key', '--dry-run'], 'dry-rules'),
      cli(['unblock', 'RECORD.CREATE', '--key', '--dry-run'], 'dry-rules'),
      cli(['ordering', 'redrive', 'sku:D', '--dry-run', '--json'], 'dry-rules'),
      cli(['ordering', 'skip', 'sku:D', '--dry-run'], 'dry-rules'),
      cli(['ordering', 'skip', 'sku:none', '--dry-run'], 'dry-rules'),
      cli(['ordering', 'halted', '--newest-first', '--limit', '1'], 'dry-rules'),
    ]);
    expect(halted.stdout).toMatch(/│ sku:D .*\n└.*\n1 of 1 halted lane\(s\) \(newest first\)\n$/);
    expect(pause).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(pause.stdout)).toEqual({
      target: { handler: 'mailOwner' },
      wouldChange: true,
      jobs: 0,
    });
    expect(block.stdout).toBe(
      'handling key RECORD.CREATE was blocked already: nothing would change (dry run: nothing changed)\n',
    );
    expect(unblock.stdout).toBe('handling key RECORD.CREATE would be unblocked (dry run: nothing changed)\n');
    expect(JSON.parse(redrive.stdout)).toEqual({ key: 'sku:D', lanes: 1, waiting: 2 });
    expect(skip.stdout).toBe(
      'would skip 1 halted lane(s) of sku:D, 2 event(s) waiting in them (dry run: nothing changed)\n',
    );
    refused(notHalted, /order key "sku:none" is not halted/);

    expect((await bus.rules.list()).map((r) => [r.kind, r.target])).toEqual([
      ['block', { handlingKey: 'RECORD.CREATE' }],
    ]);
    expect(await bus.ordering.halted()).toMatchObject([{ key: 'sku:D', waiting: 2 }]);
    await bus.rules.unblock({ handlingKey: 'RECORD.CREATE' });
  });
});
