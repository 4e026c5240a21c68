/**
 * An event store's gauges (`createBusMetrics(bus, { eventStore })`), read
 * from `store.status()` at scrape time: the version it is at, events queued,
 * whether it is halted and whether this process is its writer; a store that
 * can no longer be read turns `commitbus_event_store_up` to 0 and the others
 * keep their values. On PostgreSQL and SQLite.
 */
import { expect, it } from 'vitest';
import type { EventStore } from '../../src/index.js';
import { createBusMetrics } from '../../src/metrics/index.js';
import { shelf } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { waitFor } from '../helpers/wait-for.js';

describeOnBothDatabases('metrics event store gauges', (bed) => {
  it('show version, queued, halted and writer, and status_up 0 once the store cannot be read', async () => {
    const store = await bed.start({ models: [shelf], retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    const { bus } = await bed.bus([]);
    const metrics = createBusMetrics(bus, { eventStore: store, statusGauges: false, processMetrics: false });
    const gauges = async () => {
      const families = parsePrometheusText(await metrics.metrics());
      const value = (name: string) => sampleValue(families, `commitbus_event_store_${name}`, {});
      return {
        version: value('version'),
        queued: value('queued'),
        halted: value('halted'),
        writer: value('writer'),
        up: value('up'),
      };
    };
    const shows = (want: Awaited<ReturnType<typeof gauges>>) =>
      waitFor(
        `the gauges to show ${JSON.stringify(want)}`,
        async () => {
          const got = await gauges();
          return JSON.stringify(got) === JSON.stringify(want);
        },
        { describe: gauges },
      );

    await store.dispatch('ITEM', { id: 'a' });
    await store.dispatch('ITEM', { id: 'b' });
    await shows({ version: 2, queued: 0, halted: 0, writer: 1, up: 1 });

    await store.dispatch('ITEM', { id: 'bad' }, { wait: false });
    await store.dispatch('ITEM', { id: 'c' }, { wait: false });
    await waitFor('the store to halt', async () => (await store.halted()) !== undefined);
    await shows({ version: 2, queued: 2, halted: 1, writer: 1, up: 1 });
    expect((await store.status()).halted).toMatchObject({ v: 3, type: 'ITEM' });

    await store.skip(3, { by: 'test' });
    await store.waitForQueue({ timeoutMs: 10_000 });
    await shows({ version: 4, queued: 0, halted: 0, writer: 1, up: 1 });

    // Another process's view: a store that never started is no writer.
    const reader: EventStore = bed.create({ models: [shelf] });
    const other = createBusMetrics(bus, { eventStore: reader, statusGauges: false, processMetrics: false });
    const families = parsePrometheusText(await other.metrics());
    expect(sampleValue(families, 'commitbus_event_store_writer', {})).toBe(0);
    expect(sampleValue(families, 'commitbus_event_store_version', {})).toBe(4);

    await store.close();
    await shows({ version: 4, queued: 0, halted: 0, writer: 1, up: 0 });
  });
});
