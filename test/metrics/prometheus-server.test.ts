/**
 * The shipped dashboard and alert rules against a real Prometheus (Debian's
 * `prometheus`) scraping a real worker: a bus on Redis with a worker serving
 * its metrics and its event store's (`createBusMetrics(bus, { eventStore })`),
 * scraped every second by a Prometheus started for this file, which evaluates
 * the shipped rules (a copy with every `for:` at 0s). Each query of every
 * panel of `ops/grafana/commitbus.json`, its variables filled in, returns
 * data; a handler that gives up fires `CommitbusDeadLettersGrowing` for it,
 * and a halted event store fires `CommitbusEventStoreHalted`, as
 * `/api/v1/alerts` shows.
 */
import { readFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEventStore,
  defineHandler,
  type EventBus,
  type EventStore,
  type RunningWorker,
  silentLogger,
} from '../../src/index.js';
import { createBusMetrics } from '../../src/metrics/index.js';
import { ItemEntity, shelf } from '../fixtures/es-items.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, recordPublished, TEST_EVENTS } from '../helpers/events.js';
import { openSqlite } from '../helpers/outbox.js';
import { type PrometheusServer, startPrometheus } from '../helpers/prometheus-server.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const JOB = 'commitbus-e2e';
const SCRAPED = { timeoutMs: 20_000, intervalMs: 250 };

/** Every query of the shipped dashboard's panels, with Grafana's variables filled in for this job. */
function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync('ops/grafana/commitbus.json', 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map(({ expr }) => ({
      panel: panel.title,
      expr: expr.replaceAll('$job', JOB).replaceAll('$instance', '.*').replaceAll('$__rate_interval', '15s'),
    })),
  );
}

/** The shipped rules with every `for:` at 0s, so an alert fires at its first true evaluation. */
const rulesNow = () =>
  readFileSync('ops/prometheus/commitbus-alerts.yml', 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 0s');

const bed = redisTestBed('prom-e2e');
let dataSource: DataSource;
let bus: EventBus;
let store: EventStore;
let worker: RunningWorker;
let prometheus: PrometheusServer;

beforeAll(async () => {
  dataSource = await openSqlite([ItemEntity]);
  store = createEventStore({
    dataSource,
    models: [shelf],
    pollMs: 10,
    retryDelayMs: 60_000,
    logger: silentLogger,
  });
  await store.start();
  bus = bed.buses.create({
    events: TEST_EVENTS,
    handlers: {
      'RECORD.CREATE': [defineHandler('index', () => {})],
      'RECORD.PUBLISH': [
        {
          handler: defineHandler('announce', () => {
            throw new Error('the announcer is down');
          }),
          attempts: 1,
        },
      ],
    },
    config: fastConfig({ prefix: bed.prefix, name: 'e2e' }),
    transport: testTransport('redis'),
  });
  const metrics = createBusMetrics(bus, { eventStore: store });
  worker = await bus.startWorker({ handleSignals: false, metrics: { port: 0, registry: metrics.registry } });
  const target = `127.0.0.1:${worker.metrics?.port}`;
  prometheus = await startPrometheus({ job: JOB, targets: [target], rules: [rulesNow()] });
});

afterAll(async () => {
  await prometheus?.stop();
  await store?.close();
  await bed.buses.closeAll();
  await dataSource?.destroy();
});

/** The alerts firing now, as `alertname` or `alertname{label}` for the label given. */
async function firing(label: string): Promise<string[]> {
  const alerts = await prometheus.alerts();
  return alerts
    .filter((alert) => alert.state === 'firing')
    .map((alert) => `${alert.labels.alertname}${alert.labels[label] ? `{${alert.labels[label]}}` : ''}`)
    .sort();
}

describe('a real Prometheus scraping a worker', () => {
  it('answers every dashboard query with data, and fires the alerts whose conditions are made true', {
    timeout: 60_000,
  }, async () => {
    // Scraped twice before anything runs: the counters' zeros are in the TSDB, so the first failure is an increase.
    await waitFor(
      'Prometheus to have scraped the worker twice',
      async () =>
        (await prometheus.query(`count_over_time(commitbus_workers{job="${JOB}"}[1m]) >= 2`)).length === 1,
      SCRAPED,
    );
    expect(await prometheus.query(`up{job="${JOB}"}`)).toMatchObject([{ value: [expect.any(Number), '1'] }]);
    expect(await firing('handler')).toEqual([]);

    await bus.publish([recordCreated('1'), recordCreated('2'), recordPublished('3')]);
    await store.dispatch('ITEM', { id: 'a' });
    await store.dispatch('ITEM', { id: 'bad' }, { wait: false });
    await waitFor('the letter and the halt', async () => {
      const status = await bus.status();
      return status.deadLetters.count === 1 && (await store.halted()) !== undefined;
    });

    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThanOrEqual(25);
    const empty = async () => {
      const answers = await Promise.all(
        queries.map(async (q) => ({ ...q, n: (await prometheus.query(q.expr)).length })),
      );
      return answers.filter((a) => a.n === 0).map((a) => `${a.panel}: ${a.expr}`);
    };
    await waitFor('every dashboard query to return data', async () => (await empty()).length === 0, {
      ...SCRAPED,
      describe: empty,
    });

    await waitFor(
      'the dead letters and the halted event store to fire',
      async () => {
        const now = await firing('handler');
        return (
          now.includes('CommitbusDeadLettersGrowing{announce}') && now.includes('CommitbusEventStoreHalted')
        );
      },
      { ...SCRAPED, describe: () => firing('handler') },
    );
    const alerts = await prometheus.alerts();
    const halted = alerts.find((a) => a.labels.alertname === 'CommitbusEventStoreHalted');
    expect(halted).toMatchObject({
      state: 'firing',
      labels: { job: JOB, severity: 'critical' },
      annotations: { summary: `commitbus: the event store of ${JOB} is halted` },
    });
    // Only what was made true fires: the index handler is fine, the worker alive, no key halted.
    expect(await firing('handler')).toEqual([
      'CommitbusDeadLettersGrowing{announce}',
      'CommitbusEventStoreHalted',
    ]);
  });
});
