/**
 * `commitbus event-store subscriptions|subscription-resume|subscription-reset`
 * on a bus module with an event store (test/fixtures/cli-store.ts): the list
 * shows a halted subscription with its error, resume makes it active again,
 * and reset needs --yes, then moves its checkpoint.
 */
import { expect, it } from 'vitest';
import type { SubscriptionStatus } from '../../src/event-store/index.js';
import makeStoreModule from '../fixtures/cli-store.js';
import { ITEM_ENTITIES } from '../fixtures/es-items.js';
import { type CliResult, runCli } from '../helpers/cli-runner.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';

const SCHEMA = `i17cli_subs_${process.pid}`;
const cli = (args: string[]) =>
  runCli(['--module', 'test/fixtures/cli-store.ts', 'event-store', ...args], { CLI_PG_SCHEMA: SCHEMA });

function json<T>(result: CliResult): T {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

it('lists a halted subscription with its error; resume and reset (with --yes) act on it', {
  timeout: 240_000,
}, async () => {
  await (await openSchema(SCHEMA, ITEM_ENTITIES)).destroy();
  process.env.CLI_PG_SCHEMA = SCHEMA;
  const { eventStore, dataSource } = await makeStoreModule();
  try {
    await eventStore.start();
    for (const id of ['a', 'b', 'c']) await eventStore.dispatch('ITEM.RESULT', { sav: [{ id, qty: 1 }] });
    const mailer = await eventStore.subscriptions.start({
      name: 'mailer',
      maxAttempts: 1,
      pollMs: 10,
      handle: (event) => {
        if (event.v === 2) throw new Error('no template');
      },
    });
    await expect(mailer.caughtUp({ pollMs: 10 })).rejects.toThrow(/is halted/);
    await eventStore.close();

    const [listed] = json<SubscriptionStatus[]>(await cli(['subscriptions', '--json']));
    expect(listed).toMatchObject({ name: 'mailer', position: 1, lag: 2, status: 'halted', attempts: 1 });
    expect(listed?.error).toMatchObject({ v: 2, message: 'no template' });
    const table = await cli(['subscriptions']);
    expect(table.stdout).toMatch(/mailer.*halted.*no template/);

    expect(json(await cli(['subscription-resume', 'mailer', '--by', 'ops', '--json']))).toMatchObject({
      status: 'active',
      attempts: 0,
    });
    // Position 1 (next v2) of 3 events: from the beginning repeats one; from the end skips two.
    const [beginning, end] = await Promise.all([
      cli(['subscription-reset', 'mailer', '--from', 'beginning', '--dry-run']),
      cli(['subscription-reset', 'mailer', '--from', 'end', '--dry-run', '--json']),
    ]);
    expect(beginning.stdout).toBe(
      'would reset "mailer" from next v2 to next v1: 1 event(s) repeated, 0 skipped (dry run: nothing changed)\n',
    );
    expect(json(end)).toEqual({ name: 'mailer', next: 2, wouldGet: 4, repeated: 0, skipped: 2 });
    const refused = await cli(['subscription-reset', 'mailer', '--from', '3']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/add --yes/);
    expect(json(await cli(['subscription-reset', 'mailer', '--from', '3', '--yes', '--json']))).toMatchObject(
      {
        position: 2,
        status: 'active',
      },
    );
    const unknown = await cli(['subscription-resume', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no subscription named "nobody"/);
  } finally {
    await eventStore.close();
    await closeSchema(dataSource);
  }
});
