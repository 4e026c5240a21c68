/**
 * `commitbus audit` and the CLI's operator actions in the bus's trail: a
 * re-drive and a pause run from the CLI are recorded with source `cli` and
 * the operator's `user@host`, and `audit` prints them newest first (a table
 * with an "N of M" footer, or `--json`).
 */
import { hostname, userInfo } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventBus, OperatorAction } from '../../src/index.js';
import makeBus from '../fixtures/cli-bus.js';
import { runCli } from '../helpers/cli-runner.js';
import { recordPublished } from '../helpers/events.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-bus.ts';
const { prefix, redis } = redisTestBed('i20cli-audit');
const ENV = { ...redisEnv(), CLI_PREFIX: prefix, CLI_NAME: 'audit' };
const ME = `${userInfo().username}@${hostname()}`;

const open: EventBus[] = [];
afterAll(async () => {
  for (const bus of open.splice(0)) await bus.close();
  await redis.del(`${prefix}:fail`);
});

const cli = (args: string[]) => runCli(['--module', MODULE, ...args], ENV);

describe('commitbus audit', () => {
  it('shows a CLI re-drive and pause with source cli and user@host, newest first', {
    timeout: 180_000,
  }, async () => {
    Object.assign(process.env, ENV);
    const { bus } = await makeBus();
    open.push(bus);
    await redis.set(`${prefix}:fail`, '1');
    const worker = await bus.startWorker({ handleSignals: false });
    await bus.publish([recordPublished('a1'), recordPublished('a2')]);
    await waitFor(
      'two letters',
      async () => (await bus.deadLetters.list({ handler: 'announce' })).length === 2,
    );
    await worker.close();

    const redrive = await cli(['dead-letters', 'redrive', '--handler', 'announce']);
    expect(redrive).toMatchObject({ code: 0, stderr: '' });
    const pause = await cli(['pause', 'announce']);
    expect(pause).toMatchObject({ code: 0, stderr: '' });

    const trail = await bus.audit.list();
    // The re-drive's target is the filter asked for, not the ids of each page it went through.
    expect(JSON.parse(trail[1]?.target ?? '{}')).toMatchObject({ handler: 'announce' });
    expect(trail.map(({ action, count, source, actor }) => ({ action, count, source, actor }))).toEqual([
      { action: 'rules.pause', count: 1, source: 'cli', actor: ME },
      { action: 'dead-letters.redrive', count: 2, source: 'cli', actor: ME },
    ]);

    const [json, table, limited] = await Promise.all([
      cli(['audit', '--json']),
      cli(['audit']),
      cli(['audit', '--limit', '1']),
    ]);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const listed = JSON.parse(json.stdout) as OperatorAction[];
    expect(listed.map((a) => [a.action, a.source, a.actor, a.count])).toEqual([
      ['rules.pause', 'cli', ME, 1],
      ['dead-letters.redrive', 'cli', ME, 2],
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ at .*│ source .*│ actor .*│ action .*│ target .*│ count/);
    expect(table.stdout.indexOf('rules.pause')).toBeLessThan(table.stdout.indexOf('dead-letters.redrive'));
    expect(table.stdout).toMatch(/2 of 2 operator action\(s\) \(newest first\)\n$/);
    expect(limited.stdout).toMatch(/1 of 2 operator action\(s\) \(newest first; --limit for others\)\n$/);
    const refused = await cli(['audit', '--limit', '0']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--limit must be a whole number from 1/);
  });
});
