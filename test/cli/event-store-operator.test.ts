/**
 * `commitbus event-store` while a worker's store is the writer: `replay`
 * fails at once (it must be the writer) and for a model no one has,
 * `skip --dry-run` changes nothing, `correct` replaces the halted event's
 * data and the running writer handles it; with the writer gone, `replay` runs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import makeStoreModule from '../fixtures/cli-store.js';
import { ITEM_ENTITIES, ItemEntity } from '../fixtures/es-items.js';
import { type CliResult, runCli } from '../helpers/cli-runner.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

const STORE_MODULE = 'test/fixtures/cli-store.ts';
const SCHEMA = `i20cli_store_${process.pid}`;
const storeCli = (args: string[]) =>
  runCli(['--module', STORE_MODULE, 'event-store', ...args], { CLI_PG_SCHEMA: SCHEMA });

afterAll(async () => {
  await closeSchema(await openSchema(SCHEMA, ITEM_ENTITIES));
});

function refused(result: CliResult, message: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('commitbus event-store with a worker holding the writer role', () => {
  it('replay fails at once, and for an unknown model; skip --dry-run changes nothing; correct fixes the halt', {
    timeout: 180_000,
  }, async () => {
    await (await openSchema(SCHEMA, ITEM_ENTITIES)).destroy();
    process.env.CLI_PG_SCHEMA = SCHEMA;
    // The "worker": this process's store, started, so it is the writer.
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
      expect(eventStore.isWriter).toBe(true);

      const [replay, unknown, dry, unconfirmed, retry, replayDry, replayTypo] = await Promise.all([
        storeCli(['replay']),
        storeCli(['replay', '--models', 'items,itmes', '--wait', '60000']),
        storeCli(['skip', '2', '--dry-run']),
        storeCli(['correct', '2', '--data', '{}']),
        storeCli(['retry', '--dry-run', '--json']),
        storeCli(['replay', '--models', 'items', '--dry-run']),
        storeCli(['replay', '--models', 'itmes', '--dry-run']),
      ]);
      expect(JSON.parse(retry.stdout)).toMatchObject({ dryRun: 'retry', event: { v: 2, status: 'queued' } });
      expect(replayDry.stdout).toBe('would replay events v1..v1 into items (dry run: nothing changed)\n');
      refused(replayTypo, /no model is named "itmes" \(models: items\)/);
      refused(replay, /another process \(a worker running this event store\) is the event store's writer/);
      refused(unknown, /no model is named "itmes" \(models: items\)/);
      expect(dry).toMatchObject({ code: 0, stderr: '' });
      expect(dry.stdout).toBe('would skip 1 event: v2 (ITEM.RESULT, queued) (dry run: nothing changed)\n');
      expect((await eventStore.halted())?.v).toBe(2);
      refused(unconfirmed, /correct replaces the data of event v2 for good: add --yes/);

      const corrected = await storeCli([
        'correct',
        '2',
        '--data',
        JSON.stringify({ set: [{ id: 'a', name: 'fixed', qty: 3 }] }),
        '--yes',
        '--by',
        'ops',
        '--json',
      ]);
      expect(corrected.stderr).toBe('');
      expect(JSON.parse(corrected.stdout)).toMatchObject({ v: 2 });
      const handled = await eventStore.handledVersion(2, { timeoutMs: 60_000 });
      expect(handled.status).toBe('handled');
      expect(handled.audit?.map((a) => [a.action, a.by])).toContainEqual(['correct', 'ops']);
      expect(await dataSource.getRepository(ItemEntity).find()).toEqual([{ id: 'a', name: 'fixed', qty: 3 }]);
    } finally {
      await eventStore.close();
      await dataSource.destroy();
    }
    const replayed = await storeCli(['replay', '--json']);
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout)).toEqual({ models: ['items'], events: 2, version: 2 });
  });
});
