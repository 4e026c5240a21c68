/**
 * `commitbus dead-letters redrive --all` with a worker running and a handler
 * that fails at once: each re-driven letter dies again within milliseconds,
 * with a newer `deadAt`. The command bounds its pages by the time it started,
 * so it ends, having re-driven each letter once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/index.js';
import makeBus from '../fixtures/cli-bus.js';
import { type CliResult, runCli } from '../helpers/cli-runner.js';
import { recordPublished } from '../helpers/events.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-bus.ts';
const { prefix, redis } = redisTestBed('i12fixcli-redrive');
// More than a page (500): letters re-driven from the first page die again before the second is read.
const LETTERS = 700;

function envOf(name: string): Record<string, string> {
  return { ...redisEnv(), CLI_PREFIX: prefix, CLI_NAME: name };
}

const open: EventBus[] = [];
afterEach(async () => {
  for (const bus of open.splice(0)) await bus.close();
  await redis.del(`${prefix}:fail`);
});

describe('commitbus dead-letters redrive --all, while the letters die again at once', () => {
  it('ends, having re-driven each letter once', { timeout: 240_000 }, async () => {
    Object.assign(process.env, envOf('bound'));
    const { bus } = await makeBus();
    open.push(bus);
    await bus.startWorker({ handleSignals: false });
    // `announce` (one attempt) fails while this key exists.
    await redis.set(`${prefix}:fail`, '1');
    await bus.publish(Array.from({ length: LETTERS }, (_, i) => recordPublished(`r${i}`)));
    await waitFor('every announce to die', async () => (await bus.deadLetters.list()).length === LETTERS, {
      timeoutMs: 120_000,
    });
    const before = new Map((await bus.deadLetters.list()).map((l) => [l.id, l.deadAt.getTime()]));

    const result: CliResult = await runCli(
      ['--module', MODULE, 'dead-letters', 'redrive', '--all', '--json'],
      envOf('bound'),
    );

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ redriven: LETTERS, failed: [] });
    // Each came back once, as a new failure of the same letter.
    await waitFor(
      'every re-driven announce to die again',
      async () => {
        const after = await bus.deadLetters.list();
        return after.length === LETTERS && after.every((l) => l.deadAt.getTime() > (before.get(l.id) ?? 0));
      },
      { timeoutMs: 120_000 },
    );
  });
});
