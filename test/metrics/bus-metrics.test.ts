/**
 * A worker serving the bus's Prometheus metrics: started with `metrics` on
 * port 0, it runs handlers that succeed, fail and retry, and give up; then
 * `/metrics` is fetched over real HTTP (undici) and parsed strictly (prom-
 * client 15 has no parser of its own: `helpers/prometheus-text.ts`), with
 * exact counter values per label. On both transports.
 */
import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  defineHandler,
  Event,
  type EventBus,
  type EventHandlersConfig,
  EventType,
  MetricsServerError,
  type RunningWorker,
} from '../../src/index.js';
import { createBusMetrics } from '../../src/metrics/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, recordPublished, TEST_EVENTS } from '../helpers/events.js';
import { PIPE_EVENTS, PipeItem } from '../helpers/handler-paths.js';
import { DEAD_PUBLISHER, leaveOutboxRow, openSqlite } from '../helpers/outbox.js';
import { type MetricFamily, parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { Recorder } from '../helpers/recorder.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testRedis, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

@EventType('STOCK.MOVE', { orderBy: (e: StockMoved) => `sku:${e.sku}` })
class StockMoved extends Event {
  sku!: string;
}

const fail = () => {
  throw new Error('down');
};

const PACKAGE_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const bed = redisTestBed('i12observe-metrics');
let buses = 0;

/** `ok` (sync) succeeds, `flaky` (async) fails its first attempt, `doomed` (sync, one attempt) always fails. */
function handlers(rec: Recorder): EventHandlersConfig {
  return {
    'PIPE.ITEM': [
      [rec.handler('ok'), true],
      {
        handler: rec.handler('flaky', (_e, ctx) => {
          if (ctx.attempt === 1) throw new Error('flaky');
        }),
        attempts: 3,
      },
      {
        handler: rec.handler('doomed', () => {
          throw new Error('doomed');
        }),
        sync: true,
        attempts: 1,
      },
    ],
  };
}

async function scrape(url: string): Promise<{ status: number; type: string; text: string }> {
  const response = await request(url);
  const text = await response.body.text();
  return { status: response.statusCode, type: String(response.headers['content-type']), text };
}

describe.each(TRANSPORT_NAMES)('%s transport', (transport) => {
  /** A fresh bus's config and adapter. */
  const onTransport = () => ({
    config: fastConfig({ prefix: bed.prefix, name: `${transport}${++buses}` }),
    transport: testTransport(transport),
  });

  it('serves /metrics over HTTP; the counters and the histogram say exactly what ran, per handler and key', async () => {
    const rec = new Recorder();
    const { bus, worker } = await bed.buses.start(
      { events: PIPE_EVENTS, handlers: handlers(rec), ...onTransport() },
      { metrics: { port: 0 } },
    );
    expect(worker.metrics?.host).toBe('127.0.0.1');
    expect(worker.metrics?.url).toBe(`http://127.0.0.1:${worker.metrics?.port}/metrics`);
    await bus.publish([PipeItem.create({ n: 1 }), PipeItem.create({ n: 2 })]);
    await bus.whenIdle();
    expect(rec.count('flaky')).toBe(4);

    const { status, type, text } = await scrape(worker.metrics?.url ?? '');
    expect(status).toBe(200);
    expect(type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const metrics = parsePrometheusText(text);
    // A second, independent parser (parse-prometheus-text-format) reads the same families and values.
    const independent = parsePrometheusTextFormat(text);
    expect(Object.fromEntries(independent.map((f) => [f.name, f.type.toLowerCase()]))).toEqual(
      typesOf(metrics),
    );
    const read = (name: string, labels: Record<string, string>) => sampleValue(metrics, name, labels);
    for (const family of independent.filter((f) => f.type === 'COUNTER' || f.type === 'GAUGE')) {
      for (const sample of family.metrics) {
        expect(Number(sample.value), family.name).toBe(read(family.name, sample.labels ?? {}));
      }
    }
    const key = 'PIPE.ITEM';
    const value = (name: string, labels: Record<string, string>) => sampleValue(metrics, name, labels);
    // Node's process metrics (prom-client's defaults) come beside commitbus's own.
    const types = typesOf(metrics);
    expect(types.commitbus_process_cpu_seconds_total).toBe('counter');
    const own = Object.fromEntries(
      Object.entries(types).filter(([n]) => !/^commitbus_(process|nodejs)_/.test(n)),
    );
    expect(own).toEqual({
      commitbus_backlog_events: 'gauge',
      commitbus_build_info: 'gauge',
      commitbus_backlog_oldest_age_seconds: 'gauge',
      commitbus_bullmq_queue_paused: 'gauge',
      commitbus_dead_letters_dropped_total: 'counter',
      commitbus_dead_letters_stored: 'gauge',
      commitbus_dead_letters_total: 'counter',
      commitbus_delayed_events: 'gauge',
      commitbus_dropped_runs_total: 'counter',
      commitbus_events_published_total: 'counter',
      commitbus_handler_duration_seconds: 'histogram',
      commitbus_handler_jobs: 'gauge',
      commitbus_handler_retries_total: 'counter',
      commitbus_handler_runs_failed_total: 'counter',
      commitbus_handler_runs_handled_total: 'counter',
      commitbus_handler_runs_parked_total: 'counter',
      commitbus_ordered_events_waiting: 'gauge',
      commitbus_ordered_keys_halted: 'gauge',
      commitbus_ordered_keys_rebased_total: 'counter',
      commitbus_ordered_late_events_total: 'counter',
      commitbus_outbox_pending_rows: 'gauge',
      commitbus_outbox_relay_lag_seconds: 'gauge',
      commitbus_parked_runs: 'gauge',
      commitbus_rules_active: 'gauge',
      commitbus_status_up: 'gauge',
      commitbus_workers: 'gauge',
    });
    expect(value('commitbus_events_published_total', { key })).toBe(2);
    expect(value('commitbus_handler_runs_handled_total', { handler: 'ok', key })).toBe(2);
    expect(value('commitbus_handler_runs_handled_total', { handler: 'flaky', key })).toBe(2);
    expect(value('commitbus_handler_runs_failed_total', { handler: 'flaky', key, next: 'retry' })).toBe(2);
    expect(
      value('commitbus_handler_runs_failed_total', { handler: 'doomed', key, next: 'dead-letter' }),
    ).toBe(2);
    expect(value('commitbus_handler_retries_total', { handler: 'flaky', key })).toBe(2);
    expect(
      value('commitbus_dead_letters_total', { handler: 'doomed', key, kind: 'handler', reason: 'exhausted' }),
    ).toBe(2);
    // Nothing was parked: a counter with no label set yet has no sample.
    expect(metrics.get('commitbus_handler_runs_parked_total')?.samples).toEqual([]);
    // Every handler's counters start at 0: only doomed and flaky failed, and doomed never succeeded.
    const failedHandlers = metrics
      .get('commitbus_handler_runs_failed_total')
      ?.samples.filter((s) => s.value > 0)
      .map((s) => s.labels.handler);
    expect(failedHandlers?.sort()).toEqual(['doomed', 'flaky']);
    expect(value('commitbus_handler_runs_handled_total', { handler: 'doomed', key })).toBe(0);
    expect(value('commitbus_handler_runs_failed_total', { handler: 'ok', key, next: 'retry' })).toBe(0);

    const runs = { handled: { ok: 2, flaky: 2 }, failed: { flaky: 2, doomed: 2 } } as const;
    for (const [outcome, byHandler] of Object.entries(runs)) {
      for (const [handler, count] of Object.entries(byHandler)) {
        const labels = { handler, key, outcome };
        expect(value('commitbus_handler_duration_seconds_count', labels)).toBe(count);
        expect(value('commitbus_handler_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(count);
        const buckets = metrics
          .get('commitbus_handler_duration_seconds')
          ?.samples.filter(
            (s) => s.name.endsWith('_bucket') && s.labels.handler === handler && s.labels.outcome === outcome,
          )
          .map((s) => s.value);
        expect(buckets).toEqual([...(buckets ?? [])].sort((a, b) => a - b));
        expect(value('commitbus_handler_duration_seconds_sum', labels)).toBeGreaterThanOrEqual(0);
      }
    }

    expect((await scrape(worker.metrics?.url.replace('/metrics', '/other') ?? '')).status).toBe(404);
    await worker.close();
    // A fresh connection: the pooled one was ended by the close.
    const fresh = new Agent();
    await expect(request(worker.metrics?.url ?? '', { dispatcher: fresh })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await fresh.close();
  });

  it('serves a registry of your own, with your prefix beside your metrics; a port in use is a MetricsServerError', async () => {
    const registry = new Registry();
    const rec = new Recorder();
    const bus: EventBus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: handlers(rec),
      ...onTransport(),
    });
    const metrics = createBusMetrics(bus, { registry, prefix: 'shop_bus_' });
    const worker = await bus.startWorker({ handleSignals: false, metrics: { port: 0, registry } });
    await bus.publish(PipeItem.create({ n: 1 }));
    await bus.whenIdle();
    const parsed = parsePrometheusText((await scrape(worker.metrics?.url ?? '')).text);
    expect(
      sampleValue(parsed, 'shop_bus_handler_runs_handled_total', { handler: 'ok', key: 'PIPE.ITEM' }),
    ).toBe(1);
    expect([...parsed.keys()].every((name) => name.startsWith('shop_bus_'))).toBe(true);
    // The bus's own metrics were never built: nothing else counts.
    expect(await metrics.metrics()).toBe((await scrape(worker.metrics?.url ?? '')).text);

    const taken = worker.metrics?.port ?? 0;
    const other = bed.buses.create({ events: PIPE_EVENTS, ...onTransport() });
    const refused = other.startWorker({ handleSignals: false, metrics: { port: taken } });
    await expect(refused).rejects.toBeInstanceOf(MetricsServerError);
    await expect(refused).rejects.toMatchObject({
      code: 'COMMITBUS_METRICS_SERVER',
      message: expect.stringContaining(`cannot serve metrics on 127.0.0.1:${taken}`),
    });
    // The refused worker took no work: its bus's events wait for another.
    await other.publish(PipeItem.create({ n: 9 }));
    expect(await other.backlog()).toBe(1);
  });
});

function typesOf(metrics: Map<string, MetricFamily>): Record<string, string> {
  return Object.fromEntries([...metrics.values()].map((f) => [f.name, f.type]).sort());
}

describe.each(TRANSPORT_NAMES)('the status gauges on %s', (transport) => {
  it('show what bus.status() reads at scrape time: delayed, parked, dropped, halted, dead letters, outbox rows and lag', async () => {
    const dataSource = await openSqlite([]);
    try {
      const { bus, worker } = await bed.buses.start(
        {
          events: [...TEST_EVENTS, StockMoved],
          handlers: {
            'RECORD.CREATE': [[defineHandler('index', () => {}), true], defineHandler('mail', () => {})],
            'RECORD.PUBLISH': [{ handler: defineHandler('announce', fail), attempts: 1 }],
            'STOCK.MOVE': [{ handler: defineHandler('moveStock', fail), sync: true, attempts: 1 }],
          },
          dataSource,
          config: fastConfig({
            prefix: bed.prefix,
            name: `gauges-${transport}`,
            ...DEAD_PUBLISHER,
          }),
          transport: testTransport(transport),
        },
        { metrics: { port: 0 } },
      );
      await bus.rules.pause({ handler: 'mail' });
      await bus.rules.block({ handler: 'index' });
      await bus.publish([recordCreated('1'), recordCreated('2'), recordPublished('p')]);
      await bus.publish(StockMoved.create({ sku: 'A' }));
      await bus.publish(recordCreated('later'), { delay: 3_600_000 });
      await waitFor('two parked, two dropped, one letter, one halted key, the outbox empty', async () => {
        const status = await bus.status();
        return (
          status.parked === 2 &&
          status.dropped === 2 &&
          status.deadLetters.count === 1 &&
          status.halted.count === 1 &&
          status.outbox?.pending === 0 &&
          status.workers.alive === 1
        );
      });
      // A row a dead publisher left a minute ago (the relay takes it only after outboxGraceMs).
      await leaveOutboxRow(dataSource);

      const metrics = parsePrometheusText((await scrape(worker.metrics?.url ?? '')).text);
      const value = (name: string, labels: Record<string, string> = {}) => sampleValue(metrics, name, labels);
      expect(value('commitbus_status_up')).toBe(1);
      expect(value('commitbus_workers')).toBe(1);
      expect(value('commitbus_backlog_events')).toBe(0);
      expect(value('commitbus_backlog_oldest_age_seconds')).toBe(0);
      expect(value('commitbus_delayed_events')).toBe(1);
      expect(value('commitbus_ordered_events_waiting')).toBe(1);
      expect(value('commitbus_ordered_keys_halted')).toBe(1);
      expect(value('commitbus_parked_runs', { handler: 'mail' })).toBe(2);
      expect(value('commitbus_parked_runs', { handler: 'index' })).toBe(0);
      expect(value('commitbus_dropped_runs_total')).toBe(2);
      expect(metrics.get('commitbus_dropped_runs_total')?.type).toBe('counter');
      // Every kind has a sample: one with no letters reads 0 rather than vanishing.
      expect(
        metrics
          .get('commitbus_dead_letters_stored')
          ?.samples.map((sample) => [sample.labels.kind, sample.value])
          .sort(),
      ).toEqual([
        ['event', 0],
        ['handler', 1],
        ['undecodable', 0],
        ['webhook', 0],
      ]);
      expect(value('commitbus_handler_jobs', { handler: 'announce', state: 'waiting' })).toBe(0);
      expect(value('commitbus_outbox_pending_rows')).toBe(1);
      expect(value('commitbus_outbox_relay_lag_seconds')).toBeGreaterThanOrEqual(60);
      expect(value('commitbus_outbox_relay_lag_seconds')).toBeLessThan(120);
      // The counters of the same scrape: announce gave up, moveStock halted its key.
      expect(
        value('commitbus_handler_runs_failed_total', {
          handler: 'moveStock',
          key: 'STOCK.MOVE',
          next: 'halt',
        }),
      ).toBe(1);
      expect(value('commitbus_handler_runs_parked_total', { handler: 'mail', key: 'RECORD.CREATE' })).toBe(2);
      await bed.buses.closeAll();
    } finally {
      await dataSource.destroy();
    }
  });
});

describe("a bus's own metrics", () => {
  it('are built by its first worker that serves metrics, and its later workers serve the same', async () => {
    const rec = new Recorder();
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: { 'PIPE.ITEM': [[rec.handler('ok'), true]] },
      config: fastConfig({ prefix: bed.prefix, name: `own${++buses}` }),
      transport: testRedis(),
    });
    const handled = async (worker: RunningWorker) =>
      sampleValue(
        parsePrometheusText((await scrape(worker.metrics?.url ?? '')).text),
        'commitbus_handler_runs_handled_total',
        {
          handler: 'ok',
          key: 'PIPE.ITEM',
        },
      );
    const first = await bus.startWorker({ handleSignals: false, metrics: { port: 0 } });
    await bus.publish(PipeItem.create({ n: 1 }));
    await bus.whenIdle();
    // Metrics built by this worker would count from its start, and miss the run before it.
    const second = await bus.startWorker({ handleSignals: false, metrics: { port: 0 } });
    await bus.publish(PipeItem.create({ n: 2 }));
    await bus.whenIdle();
    expect(await handled(first)).toBe(2);
    expect(await handled(second)).toBe(2);
    await second.close();
    await first.close();
  });

  it("start every registered handler's counters at 0, before any run, so rate() sees the first failure; build info and process metrics", async () => {
    const rec = new Recorder();
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: handlers(rec),
      config: fastConfig({ prefix: bed.prefix, name: `zero${++buses}` }),
      transport: testRedis(),
    });
    const metrics = createBusMetrics(bus, { statusGauges: false });
    const families = parsePrometheusText(await metrics.metrics());
    expect(
      sampleValue(families, 'commitbus_build_info', {
        version: PACKAGE_VERSION,
        node: process.versions.node,
      }),
    ).toBe(1);
    // Node's process metrics, under the prefix, on a registry of their own; none on yours unless asked.
    expect(families.has('commitbus_process_cpu_seconds_total')).toBe(true);
    const mine = createBusMetrics(bus, { statusGauges: false, registry: new Registry() });
    expect(parsePrometheusText(await mine.metrics()).has('commitbus_process_cpu_seconds_total')).toBe(false);
    mine.close();
    for (const handler of ['ok', 'flaky', 'doomed']) {
      const run = { handler, key: 'PIPE.ITEM' };
      expect(sampleValue(families, 'commitbus_handler_runs_handled_total', run)).toBe(0);
      expect(sampleValue(families, 'commitbus_handler_retries_total', run)).toBe(0);
      for (const next of ['retry', 'dead-letter', 'halt']) {
        expect(sampleValue(families, 'commitbus_handler_runs_failed_total', { ...run, next })).toBe(0);
      }
    }
    metrics.close();
  });
});
