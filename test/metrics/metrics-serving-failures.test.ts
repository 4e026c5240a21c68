/**
 * A worker's /metrics server when something is wrong: options it cannot
 * serve, a close that fails, a status read failing during a scrape; and the
 * strict parser every scrape of these tests goes through.
 */
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { createBusMetrics } from '../../src/metrics/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { fastConfig } from '../helpers/buses.js';
import { PIPE_EVENTS } from '../helpers/handler-paths.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';

const bed = redisTestBed('i12observe-metrics-serving');

/** One GET of a worker's `/metrics`. */
async function scrape(url: string): Promise<{ status: number; type: string; text: string }> {
  const response = await request(url);
  const text = await response.body.text();
  return { status: response.statusCode, type: String(response.headers['content-type']), text };
}

describe('metrics options a worker cannot serve', () => {
  it('a registry without metrics() or contentType, or a port that is not one, is refused at start with a ConfigError', async () => {
    const bus = bed.buses.create({ events: PIPE_EVENTS, transport: sqliteTransport(), logger: silentLogger });
    const refused = async (metrics: unknown) =>
      bus.startWorker({ handleSignals: false, metrics: metrics as { port: number } }).then(
        () => undefined,
        (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
      );
    for (const registry of [{}, createBusMetrics(bus), { metrics: async () => 'up 1\n' }]) {
      expect(await refused({ port: 0, registry })).toMatch(
        /^COMMITBUS_CONFIG: .*must be a Prometheus registry/,
      );
    }
    for (const port of ['9100x', -1, 1.5, 70_000]) {
      expect(await refused({ port })).toMatch(/^COMMITBUS_CONFIG: .*must be a whole number from 0 to 65535/);
    }
  });

  it('a registry that throws or gives no text fails the scrape with a 500, and the process goes on', async () => {
    const bus = bed.buses.create({ events: PIPE_EVENTS, transport: sqliteTransport(), logger: silentLogger });
    for (const metrics of [
      () => {
        throw new Error('sync');
      },
      async () => ({ not: 'text' }),
    ]) {
      const worker = await bus.startWorker({
        handleSignals: false,
        metrics: { port: 0, registry: { contentType: 'text/plain', metrics } as never },
      });
      expect((await scrape(worker.metrics?.url ?? '')).status).toBe(500);
      await worker.close();
    }
  });
});

describe('a worker whose close fails', () => {
  it('still frees the metrics port, and close rejects with the failure', async () => {
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      config: fastConfig({}),
      transport: sqliteTransport(),
    });
    const { transport } = bus;
    const start = transport.startWorker.bind(transport);
    // The transport's worker closes, then reports a failure, as a lost connection would.
    transport.startWorker = async (options) => {
      const inner = await start(options);
      return {
        close: async (timeoutMs) => {
          await inner.close(timeoutMs);
          throw new Error('drain close failed');
        },
      };
    };
    const worker = await bus.startWorker({ handleSignals: false, metrics: { port: 0 } });
    expect((await scrape(worker.metrics?.url ?? '')).status).toBe(200);
    await expect(worker.close()).rejects.toThrow('drain close failed');
    const fresh = new Agent();
    await expect(request(worker.metrics?.url ?? '', { dispatcher: fresh })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await fresh.close();
    await worker.stopped;
    // The bus no longer holds the worker: it closes cleanly.
    await bus.close();
  });
});

describe('a status read that fails during a scrape', () => {
  it('is logged, serves the counters, and says so in status_up', async () => {
    const warnings: string[] = [];
    const metrics = createBusMetrics({
      observe: () => () => {},
      knowsHandlingKey: () => true,
      status: () => Promise.reject(new Error('redis is down')),
      logger: { ...silentLogger, warn: (_f, message) => void warnings.push(message) },
    });
    const parsed = parsePrometheusText(await metrics.metrics());
    expect(sampleValue(parsed, 'commitbus_status_up', {})).toBe(0);
    expect(warnings).toEqual([
      'bus.status() failed during a metrics scrape; the status gauges keep their last values',
    ]);
  });
});

describe('the strict parser the scrape goes through', () => {
  it('reads escapes and refuses what the format does not allow', () => {
    const ok = '# HELP a_total A\n# TYPE a_total counter\na_total{x="q\\"\\\\\\n",y=""} 3\n';
    expect(sampleValue(parsePrometheusText(ok), 'a_total', { x: 'q"\\\n', y: '' })).toBe(3);
    for (const bad of [
      'a_total 1\n', // no # TYPE
      '# TYPE a_total counter\na_total{x="1",x="2"} 1\n', // a label twice
      '# TYPE a_total counter\na_total{x=1} 1\n', // unquoted
      '# TYPE a_total counter\na_total one\n', // not a number
      '# TYPE a_total counter\na_total 1', // no final newline
      '# TYPE a_total countr\n', // unknown type
    ]) {
      expect(() => parsePrometheusText(bad), bad).toThrow();
    }
  });
});
