/**
 * The worker's metrics server, over real HTTP on 127.0.0.1: `/healthz`
 * answers 200 while the process serves; `/readyz` 200 only while the worker
 * runs, its transport answers and its DataSource does, else 503 with the
 * reason as JSON; `/metrics` has the `commitbus_workers` gauge (workers
 * alive, from their beats).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { openSqlite } from '../helpers/outbox.js';
import { OwnRedis } from '../helpers/own-redis.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { testPrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait-for.js';

const buses = new Buses();
let redis: OwnRedis;
beforeAll(async () => {
  redis = await OwnRedis.start();
});
afterEach(() => buses.closeAll());
afterAll(() => redis.stop());

const WORKERS = { beatEveryMs: 50, goneAfterMs: 500 };

async function get(url: string): Promise<{ status: number; type: string; body: unknown; text: string }> {
  const response = await fetch(url);
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    type,
    text,
    body: type.startsWith('application/json') ? JSON.parse(text) : text,
  };
}

describe("the worker's probes", () => {
  it('answer healthz always, and readyz 503 with the reason while Redis is away, 200 once it is back', async () => {
    const { worker } = await buses.start(
      {
        events: TEST_EVENTS,
        config: fastConfig({ prefix: testPrefix('probes'), name: 'probes', workers: WORKERS }),
        transport: redisTransport({ url: redis.url }),
      },
      { metrics: { port: 0 } },
    );
    const base = `http://127.0.0.1:${worker.metrics?.port}`;
    expect(await get(`${base}/healthz`)).toMatchObject({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { status: 'ok' },
    });
    expect(await get(`${base}/readyz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    await waitFor('the gauge counting this worker', async () => {
      const metrics = parsePrometheusText((await get(`${base}/metrics`)).text);
      return sampleValue(metrics, 'commitbus_workers', {}) === 1;
    });

    await redis.stop();
    try {
      await waitFor('readyz to say Redis is away', async () => (await get(`${base}/readyz`)).status === 503);
      const { body } = await get(`${base}/readyz`);
      expect(body).toEqual({
        status: 'not ready',
        reason: expect.stringMatching(/^the transport cannot be reached: /),
      });
      expect((body as { reason: string }).reason).toContain(`127.0.0.1:${redis.port}`);
      expect((await get(`${base}/healthz`)).status).toBe(200);
    } finally {
      await redis.start();
    }
    await waitFor('readyz ready again', async () => (await get(`${base}/readyz`)).status === 200, {
      timeoutMs: 15_000,
    });
    expect((await get(`${base}/other`)).status).toBe(404);
  });

  it('answer readyz 503 while the worker closes, and 200 on a bus whose DataSource answers', async () => {
    let release: () => void = () => {};
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [defineHandler('holds', () => new Promise<void>((resolve) => (release = resolve)))],
    };
    const dataSource = await openSqlite([]);
    try {
      const { bus, worker } = await buses.start(
        {
          events: TEST_EVENTS,
          handlers,
          dataSource,
          config: fastConfig({ prefix: testPrefix('probes'), name: 'closing', workers: WORKERS }),
          transport: sqliteTransport({ pollMs: 20 }),
        },
        { metrics: { port: 0 } },
      );
      const base = `http://127.0.0.1:${worker.metrics?.port}`;
      expect(await get(`${base}/readyz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
      await bus.publish(recordCreated('1'));
      await waitFor(
        'the handler run under way',
        async () => (await bus.status()).workers.list[0]?.busy === 1,
      );
      const closed = worker.close();
      await waitFor(
        'readyz to say the worker closes',
        async () => (await get(`${base}/readyz`)).status === 503,
      );
      expect((await get(`${base}/readyz`)).body).toEqual({
        status: 'not ready',
        reason: 'the worker is not running (starting or closing)',
      });
      expect((await get(`${base}/healthz`)).status).toBe(200);
      release();
      await closed;
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      release();
      await buses.closeAll();
      await dataSource.destroy();
    }
  });
});
