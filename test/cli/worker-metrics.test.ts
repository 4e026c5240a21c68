/**
 * `commitbus worker --metrics-port` on a bus module with an event store
 * serves the store's gauges beside the bus's: run as an operator runs it (a
 * child process on the `cli-store.ts` fixture, its store on PostgreSQL), the
 * worker becomes the store's writer, handles an event dispatched here, and
 * its `/metrics` says so.
 */
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import makeStoreModule from '../fixtures/cli-store.js';
import { ITEM_ENTITIES } from '../fixtures/es-items.js';
import { startCli } from '../helpers/cli-runner.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { waitFor } from '../helpers/wait-for.js';

const SCHEMA = `i20cli_metrics_${process.pid}`;
const CLI_TIMEOUT = 90_000;

afterAll(async () => {
  await closeSchema(await openSchema(SCHEMA, ITEM_ENTITIES));
});

describe('commitbus worker --metrics-port, with an event store', () => {
  it("serves the event store's gauges: this worker writes it, at the version it handled", {
    timeout: CLI_TIMEOUT,
  }, async () => {
    await (await openSchema(SCHEMA, ITEM_ENTITIES)).destroy();
    process.env.CLI_PG_SCHEMA = SCHEMA;
    const worker = startCli(['worker', 'test/fixtures/cli-store.ts', '--metrics-port', '0'], {
      CLI_PG_SCHEMA: SCHEMA,
      // The fixture's bus is an in-process one on purpose.
      COMMITBUS_TRANSPORT: 'memory',
    });
    const { eventStore, dataSource } = await makeStoreModule();
    try {
      await waitFor('the worker to serve metrics', () => /metrics at (\S+)/.test(worker.stdout()), {
        timeoutMs: CLI_TIMEOUT / 2,
        describe: () => worker.stderr(),
      });
      const url = /metrics at (\S+)/.exec(worker.stdout())?.[1] ?? '';
      await eventStore.dispatch(
        'ITEM.RESULT',
        { set: [{ id: 'a', name: 'A', qty: 1 }] },
        { timeoutMs: 20_000 },
      );
      const gauges = async () => {
        const response = await request(url);
        const families = parsePrometheusText(await response.body.text());
        const value = (name: string) => sampleValue(families, `commitbus_event_store_${name}`, {});
        return {
          version: value('version'),
          writer: value('writer'),
          halted: value('halted'),
          up: value('up'),
        };
      };
      await waitFor('the gauges to show the handled event', async () => (await gauges()).version === 1, {
        describe: gauges,
      });
      expect(await gauges()).toEqual({ version: 1, writer: 1, halted: 0, up: 1 });
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await eventStore.close();
      await dataSource.destroy();
    }
  });
});
