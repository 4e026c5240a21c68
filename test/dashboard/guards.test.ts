/**
 * What the dashboard refuses and how it fails, over real HTTP on 127.0.0.1:
 * foreign Host names (DNS rebinding), other sites' pages (its own API and
 * bull-board's routes), ids that are not letter ids, paging of dead letters,
 * a part of the page that cannot be read, errors that are ours, bull-board
 * not installed, and options out of range.
 */
import { request } from 'node:http';
import type { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors/config.error.js';
import { BULL_BOARD_MODULES } from '../../src/dashboard/bull-board.js';
import { bullmqQueuesOf } from '../../src/dashboard/bullmq-queues.js';
import { DEAD_LETTERS_SHOWN } from '../../src/dashboard/dashboard-snapshot.js';
import {
  BullBoardMissingError,
  type DashboardOptions,
  type RunningDashboard,
  startDashboard,
} from '../../src/dashboard/index.js';
import { startDashboardWith } from '../../src/dashboard/start-dashboard.js';
import type { DeadLetter } from '../../src/dead-letters/dead-letter.js';
import { defineHandler, type EventHandlersConfig, type Logger } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { StoreBed } from '../helpers/event-store-bed.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { freePort } from '../helpers/free-port.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis, testTransport } from '../helpers/transports.js';

const bed = redisTestBed('i12dash2-guards');
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
});

const EMBEDDED = { scheduleEveryMs: 0, blockMs: 20, name: 'i12dash2-guards' } as const;
const ACTION = { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' };

async function open(options: DashboardOptions): Promise<RunningDashboard> {
  const dashboard = await startDashboard(options);
  dashboards.push(dashboard);
  return dashboard;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A raw HTTP request, so the test can send any `Host` (fetch sets its own). */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function post(dashboard: RunningDashboard, path: string, body: object, headers: object = ACTION) {
  return fetch(`${dashboard.url}/api${path}`, {
    method: 'POST',
    headers: headers as Record<string, string>,
    body: JSON.stringify(body),
  });
}

/** A day ago, to the second: inside the default `deadLetters.maxAgeMs`, so the store keeps the letters. */
const BASE = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;

/** A letter of `handler` as the store holds it, dead `deadAt` ms after {@link BASE}. */
function letter(eventId: string, handler: string, deadAt: number): DeadLetter {
  const at = new Date(BASE + deadAt);
  return {
    id: `${eventId}.${handler}`,
    kind: 'handler',
    eventId,
    handlingKey: 'RECORD.CREATE',
    handler,
    reason: 'exhausted',
    error: 'boom',
    attempts: [{ attempt: 1, at, error: 'boom', name: 'Error' }],
    firstFailedAt: at,
    deadAt: at,
    payload: '{}',
  };
}

/** A bus on the embedded transport (SQLite in memory) whose dead-letter store the test fills by hand. */
function embeddedBus(logger?: Logger) {
  const bus = bed.buses.create({
    events: TEST_EVENTS,
    config: EMBEDDED,
    transport: testTransport('sqlite'),
    ...(logger === undefined ? {} : { logger }),
  });
  return { bus, store: bus.transport.deadLetters };
}

function port(dashboard: RunningDashboard): number {
  return Number(new URL(dashboard.url).port);
}

describe('the Host a request names', () => {
  it('refuses a foreign Host even with a matching Origin (DNS rebinding), and answers its own and allowedHosts', async () => {
    const { bus, store } = embeddedBus();
    await store.add([letter('e1', 'mail.send', 1)]);
    const dashboard = await open({ bus, allowedHosts: ['ops.example.com'] });
    const rebound = `attacker.test:${port(dashboard)}`;
    const foreign = {
      ...ACTION,
      host: rebound,
      origin: `http://${rebound}`,
      'sec-fetch-site': 'same-origin',
    };
    const purge = await send(`${dashboard.url}/api/dead-letters/purge`, 'POST', foreign, '{"all":true}');
    expect(purge.status).toBe(421);
    expect(JSON.parse(purge.body).message).toContain('allowedHosts');
    expect((await send(`${dashboard.url}/api/dead-letters`, 'GET', { host: rebound })).status).toBe(421);
    expect((await send(`${dashboard.url}/`, 'GET', { host: rebound })).status).toBe(421);
    expect(await bus.deadLetters.list()).toHaveLength(1);

    for (const host of [`localhost:${port(dashboard)}`, `[::1]:${port(dashboard)}`, 'OPS.example.com']) {
      expect((await send(`${dashboard.url}/api/dead-letters`, 'GET', { host })).status).toBe(200);
    }
  });
});

describe('actions from other sites', () => {
  it('refuses a proxied origin unless allowedOrigins lists it or the browser says same-origin', async () => {
    const { bus } = embeddedBus();
    const strict = await open({ bus });
    const proxied = { ...ACTION, origin: 'https://ops.example.com' };
    expect((await post(strict, '/dead-letters/purge', { all: true }, proxied)).status).toBe(403);
    const sameOrigin = { ...proxied, 'sec-fetch-site': 'same-origin' };
    expect((await post(strict, '/dead-letters/purge', { all: true }, sameOrigin)).status).toBe(200);
    const behindProxy = await open({ bus, allowedOrigins: ['https://ops.example.com/'] });
    expect((await post(behindProxy, '/dead-letters/purge', { all: true }, proxied)).status).toBe(200);
    const other = { ...ACTION, origin: 'https://evil.example' };
    expect((await post(behindProxy, '/dead-letters/purge', { all: true }, other)).status).toBe(403);
  });

  it("guards bull-board's own PUTs: another site's page cannot pause a queue, the dashboard's can (writes allowed)", async () => {
    const config = fastConfig({ prefix: bed.prefix, name: 'board-put' });
    const bus = bed.buses.create({ events: TEST_EVENTS, config, transport: testRedis() });
    const dashboard = await open({ bus, bullBoard: { readOnly: false } });
    const queue = bullmqQueuesOf(bus).find((q) => q.name === 'board-put-async') as Queue;
    const pause = (headers: Record<string, string>) =>
      fetch(`${dashboard.url}/queues/api/queues/board-put-async/pause`, { method: 'PUT', headers });
    expect((await pause({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await pause({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(await queue.isPaused()).toBe(false);
    expect((await pause({ origin: dashboard.url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(await queue.isPaused()).toBe(true);
    await queue.resume();
  });
});

describe('dead letters through the API', () => {
  it('refuses { id: "all" } and keeps every letter; a real id purges that one', async () => {
    const { bus, store } = embeddedBus();
    await store.add([letter('e1', 'mail.send', 1), letter('e2', 'mail.send', 2)]);
    const dashboard = await open({ bus });
    for (const path of ['/dead-letters/purge', '/dead-letters/redrive']) {
      const answer = await post(dashboard, path, { id: 'all' });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'COMMITBUS_DASHBOARD_REQUEST' });
    }
    expect(await bus.deadLetters.list()).toHaveLength(2);
    expect(await (await post(dashboard, '/dead-letters/purge', { id: 'e1.mail.send' })).json()).toMatchObject(
      {
        purged: 1,
      },
    );
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual(['e2.mail.send']);
  });

  it('shows the oldest letters of more than fit, counts them all, and pages the API with limit and filters', async () => {
    const { bus, store } = embeddedBus();
    const total = DEAD_LETTERS_SHOWN + 5;
    await store.add(
      Array.from({ length: total }, (_, i) =>
        letter(`e${i}`, i % 2 === 0 ? 'mail.send' : 'ledger.post', i + 1),
      ),
    );
    const dashboard = await open({ bus });
    const overview = (await (await fetch(`${dashboard.url}/api/overview`)).json()) as {
      deadLetterCount: number;
      deadLetters: DeadLetter[];
    };
    expect(overview.deadLetterCount).toBe(total);
    expect(overview.deadLetters).toHaveLength(DEAD_LETTERS_SHOWN);
    const page = await (await fetch(`${dashboard.url}/`)).text();
    expect(page.match(/<tr data-letter=/g)).toHaveLength(DEAD_LETTERS_SHOWN);
    expect(page).toContain(`The oldest ${DEAD_LETTERS_SHOWN} of ${total} are listed`);

    const list = async (query: string) => fetch(`${dashboard.url}/api/dead-letters${query}`);
    expect((await (await list('')).json()) as unknown[]).toHaveLength(200);
    const three = (await (await list('?limit=3')).json()) as DeadLetter[];
    expect(three.map((l) => l.id)).toEqual(['e0.mail.send', 'e1.ledger.post', 'e2.mail.send']);
    const ledger = (await (await list('?handler=ledger.post&limit=2')).json()) as DeadLetter[];
    expect(ledger.map((l) => l.id)).toEqual(['e1.ledger.post', 'e3.ledger.post']);
    for (const bad of ['?limit=1001', '?limit=0', '?limit=ten']) {
      const answer = await list(bad);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'COMMITBUS_DASHBOARD_REQUEST' });
    }
  });

  it('answers 409 naming the letters a re-drive left, after re-driving the others', async () => {
    let failing = true;
    const flaky = defineHandler('guards.flaky', () => {
      if (failing) throw new Error('down');
    });
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [{ handler: flaky, attempts: 1 }] };
    const { bus } = await bed.buses.start({
      events: TEST_EVENTS,
      handlers,
      config: EMBEDDED,
      transport: testTransport('sqlite'),
    });
    const event = recordCreated('r1');
    await bus.publish(event);
    await bus.whenIdle(10_000);
    await bus.transport.deadLetters.add([letter('e9', 'gone.handler', 1)]);
    const dashboard = await open({ bus });
    failing = false;
    const answer = await post(dashboard, '/dead-letters/redrive', { all: true });
    expect(answer.status).toBe(409);
    const body = (await answer.json()) as { redriven: number; failed: { id: string }[]; code: string };
    expect(body.redriven).toBe(1);
    expect(body.failed.map((f) => f.id)).toEqual(['e9.gone.handler']);
    await bus.whenIdle(10_000);
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual(['e9.gone.handler']);
  });
});

describe('when a part fails', () => {
  const store = new StoreBed('sqlite', 'unused');
  afterEach(() => store.close());

  it("shows the rest of the page when the event store's database is gone, and answers a failed action with a logged 500", async () => {
    const logged: { message: string; fields: object }[] = [];
    const record = (fields: object, message: string) => logged.push({ fields, message });
    const logger: Logger = { info: () => {}, warn: record, error: record };
    await store.open();
    const eventStore = await store.start({ models: [] });
    const { bus } = embeddedBus(logger);
    const dashboard = await open({ bus, eventStore });
    await store.dataSource.destroy();

    const page = await fetch(`${dashboard.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(
      /<section id="event-store-section"><h2>Event store<\/h2><p class="error unavailable">unavailable: \S/,
    );
    expect(html).toContain('<section id="backlog">');
    expect(html).toContain('No dead letters.');

    expect(logged).toContainEqual({
      message: 'the dashboard could not read a part of its page',
      fields: expect.objectContaining({ part: 'event store' }),
    });
    logged.length = 0;
    const skip = await post(dashboard, '/event-store/skip', { v: 1 });
    expect(skip.status).toBe(500);
    const body = (await skip.json()) as { message: string };
    expect(body.message).toBe('the dashboard failed to do that: see the server log');
    expect(logged.map((l) => l.message)).toContain('a dashboard request failed');
    await store.dataSource.initialize(); // for the bed to close
  });
});

describe('options and bull-board', () => {
  it('refuses a port, basePath, readTimeoutMs or refreshMs out of range', async () => {
    const { bus } = embeddedBus();
    for (const options of [
      { port: 70_000 },
      { port: -1 },
      { port: 1.5 },
      { basePath: 'ops' },
      { basePath: '/o ps' },
      { basePath: '/../admin' },
      { basePath: '/ops/../admin' },
      { basePath: '/.' },
      { basePath: '/ops//x' },
      { readTimeoutMs: 0 },
      { readTimeoutMs: 2 ** 31 },
      { readTimeoutMs: 1.5 },
      { refreshMs: 0 },
      { refreshMs: 99 },
      { refreshMs: 2 ** 31 },
    ]) {
      await expect(startDashboard({ bus, ...options })).rejects.toBeInstanceOf(ConfigError);
    }
  });

  it('without bull-board installed: throws when bullBoard: true (and frees its port), shows a note when unset', async () => {
    const config = fastConfig({ prefix: bed.prefix, name: 'no-board' });
    const bus = bed.buses.create({ events: TEST_EVENTS, config, transport: testRedis() });
    const missing = { ...BULL_BOARD_MODULES, fastify: '@bull-board/not-installed-here' };
    const free = await freePort();
    await expect(startDashboardWith({ bus, bullBoard: true, port: free }, missing)).rejects.toBeInstanceOf(
      BullBoardMissingError,
    );
    const dashboard = await startDashboardWith({ bus, port: free }, missing);
    dashboards.push(dashboard);
    const page = await (await fetch(`${dashboard.url}/`)).text();
    expect(page).toContain('no bull-board: npm install @bull-board/api @bull-board/fastify');
    expect(page).toContain('<td>no-board-async</td>');
    expect((await fetch(`${dashboard.url}/queues/`)).status).toBe(404);
  });

  it('puts bull-board behind the auth hook', async () => {
    const config = fastConfig({ prefix: bed.prefix, name: 'hooked' });
    const bus = bed.buses.create({ events: TEST_EVENTS, config, transport: testRedis() });
    const dashboard = await open({ bus, auth: ({ headers }) => headers['x-team'] === 'ops' });
    expect((await fetch(`${dashboard.url}/queues/`)).status).toBe(403);
    expect((await fetch(`${dashboard.url}/queues/api/queues`)).status).toBe(403);
    const ops = { headers: { 'x-team': 'ops' } };
    expect((await fetch(`${dashboard.url}/queues/api/queues`, ops)).status).toBe(200);
  });
});
