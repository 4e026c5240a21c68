/**
 * The dashboard's router page and `GET api/router` over real HTTP, on a bus
 * on Redis (the router's stores live there): topics, subscribers with their
 * state in words, success rate over the attempt log and last error, each
 * subscriber's newest attempts, never a secret; without the router, what to
 * do; and `commitbus dashboard --router` serving the page.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/index.js';
import type { DeliveryAttempt } from '../../src/router/delivery-attempt-log.js';
import { Buses } from '../helpers/buses.js';
import { type CliProcess, startCli } from '../helpers/cli-runner.js';
import { TEST_EVENTS } from '../helpers/events.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const buses = new Buses();
const bed = redisTestBed('dletters-router');
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
  await buses.closeAll();
});

const CONFIG = { scheduleEveryMs: 0, blockMs: 20, prefix: bed.prefix } as const;
const T = Date.parse('2026-12-04T10:00:00Z');

function attempt(n: number, ok: boolean): DeliveryAttempt {
  return {
    at: T + n * 1_000,
    batch: `b${n}`,
    events: 2,
    ok,
    status: ok ? 204 : 503,
    error: ok ? null : 'HTTP 503',
    durationMs: 40 + n,
  };
}

describe('the router page', () => {
  it('shows topics, subscribers with state, success rate, last error and attempts, never a secret', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      config: { ...CONFIG, name: 'router-page' },
      transport: testRedis(),
    });
    const router = bus.router;
    await router.topics.ensureTopics(['orders']);
    for (const name of ['billing', 'audit']) {
      await router.subscribers.saveSubscriber({
        name,
        callback: `https://${name}.test/hook`,
        uuid: `${name}-uuid-secret`,
        maxEvents: 10,
        timeoutMs: 0,
        topics: ['orders'],
      });
    }
    await router.subscribers.addSigningSecret('billing', 'whsec_secret');
    await router.subscribers.setPaused('audit', true);
    for (let n = 0; n < 4; n++) await router.attempts.record('billing', attempt(n, n !== 3));
    const dashboard = await startDashboard({ bus, router });
    dashboards.push(dashboard);

    const view = (await (await fetch(`${dashboard.url}/api/router`)).json()) as {
      topics: { name: string }[];
      subscribers: {
        name: string;
        successRate: number | null;
        attempts: DeliveryAttempt[];
        paused: boolean;
      }[];
    };
    expect(view.topics.map((t) => t.name)).toEqual(['orders']);
    const billing = view.subscribers.find((s) => s.name === 'billing');
    expect(billing?.successRate).toBe(0.75);
    expect(billing?.attempts.map((a) => a.batch)).toEqual(['b3', 'b2', 'b1', 'b0']);
    expect(view.subscribers.find((s) => s.name === 'audit')).toMatchObject({
      paused: true,
      successRate: null,
    });

    const page = await (await fetch(`${dashboard.url}/router`)).text();
    expect(page).toContain('<td class="n" title="of the last 4 attempts">75.0 %</td>');
    expect(page).toContain('<span class="state warn">paused</span>');
    expect(page).toContain('<span class="state bad">failed</span>');
    expect(page).toContain('<td class="error">HTTP 503</td>');
    for (const secret of ['whsec_secret', 'uuid-secret']) {
      expect(page).not.toContain(secret);
      expect(JSON.stringify(view)).not.toContain(secret);
    }
  });

  it('says how to enable it when the dashboard has no router', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      config: { ...CONFIG, name: 'no-router' },
      transport: testRedis(),
    });
    const dashboard = await startDashboard({ bus });
    dashboards.push(dashboard);
    const page = await (await fetch(`${dashboard.url}/router`)).text();
    expect(page).toContain('Run <code>commitbus dashboard --router</code>');
    const api = await fetch(`${dashboard.url}/api/router`);
    expect(api.status).toBe(404);
    expect(((await api.json()) as { message: string }).message).toContain('commitbus dashboard --router');
  });

  it("is served by `commitbus dashboard --router` with the bus module's router", {
    timeout: 120_000,
  }, async () => {
    const env = { ...redisEnv(), CLI_PREFIX: bed.prefix, CLI_NAME: 'router-cli' };
    const bus = buses.create({
      events: TEST_EVENTS,
      config: { ...CONFIG, name: 'router-cli' },
      transport: testRedis(),
    });
    await bus.router.subscribers.saveSubscriber({
      name: 'ledger',
      callback: 'https://ledger.test/hook',
      uuid: null,
      maxEvents: 10,
      timeoutMs: 0,
      topics: ['orders'],
    });
    const cli: CliProcess = startCli(
      ['--module', 'test/fixtures/cli-bus.ts', 'dashboard', '--port', '0', '--router'],
      env,
    );
    try {
      await waitFor('the dashboard to serve', () => /commitbus dashboard: http:/.test(cli.stdout()), {
        timeoutMs: 60_000,
        describe: () => `${cli.stdout()}\n${cli.stderr()}`,
      });
      const url = /commitbus dashboard: (\S+)/.exec(cli.stdout())?.[1] as string;
      const page = await (await fetch(`${url}/router`)).text();
      expect(page).toContain('<tr data-subscriber="ledger">');
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });
});
