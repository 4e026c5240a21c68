/**
 * The dashboard's server over real HTTP on a bus on the embedded transport (SQLite in memory): what it shows without
 * BullMQ, the JSON API's actions (rules, halted keys, the event store's halt,
 * router subscribers), and what it refuses (other origins, no credentials).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BULL_BOARD_MODULES, loadBullBoard } from '../../src/dashboard/bull-board.js';
import {
  BullBoardMissingError,
  type DashboardOptions,
  type DashboardSnapshot,
  type RunningDashboard,
  startDashboard,
  type Unavailable,
} from '../../src/dashboard/index.js';
import {
  defineHandler,
  defineModel,
  type EventHandlersConfig,
  isCommitbusError,
  type StoreEvent,
} from '../../src/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { ItemEntity, items } from '../fixtures/es-items.js';
import { Buses } from '../helpers/buses.js';
import { StoreBed } from '../helpers/event-store-bed.js';
import { FlowStep, flowStep, TEST_EVENTS } from '../helpers/events.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const buses = new Buses();
// Keys under its prefix (the router's records) are deleted after the file.
const redisBed = redisTestBed('i12dashboard-api');
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
  await buses.closeAll();
});

const EMBEDDED = { scheduleEveryMs: 0, blockMs: 20, name: 'i12dashboard-api' } as const;
const ACTION = { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' };

async function open(options: DashboardOptions): Promise<RunningDashboard> {
  const dashboard = await startDashboard(options);
  dashboards.push(dashboard);
  return dashboard;
}

/** The overview as these tests read it: every part available. */
type Overview = { [K in keyof DashboardSnapshot]: Exclude<DashboardSnapshot[K], Unavailable> };

async function overview(dashboard: RunningDashboard): Promise<Overview> {
  return (await (await fetch(`${dashboard.url}/api/overview`)).json()) as Overview;
}

function post(dashboard: RunningDashboard, path: string, body: object, headers: object = ACTION) {
  return fetch(`${dashboard.url}/api${path}`, {
    method: 'POST',
    headers: headers as Record<string, string>,
    body: JSON.stringify(body),
  });
}

describe('the dashboard on an embedded bus', () => {
  it('says there are no BullMQ queues, serves no bull-board, and listens on 127.0.0.1', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      config: EMBEDDED,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    const dashboard = await open({ bus });
    expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(`${dashboard.url}/`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'nonce-");
    const text = await page.text();
    expect(text).toContain(
      "The sql-sqlite transport has no BullMQ queues: only commitbus's own views are shown.",
    );
    expect((await fetch(`${dashboard.url}/queues/`)).status).toBe(404);
    expect(await overview(dashboard)).toMatchObject({
      transport: 'sql-sqlite',
      queues: [],
      deadLetterCount: 0,
    });
  });

  it('refuses actions without the header, from another origin or site, and malformed ones', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      config: EMBEDDED,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    const dashboard = await open({ bus });
    const json = { 'content-type': 'application/json' };
    expect((await post(dashboard, '/dead-letters/purge', { all: true }, json)).status).toBe(403);
    const foreign = { ...ACTION, origin: 'https://evil.example' };
    expect((await post(dashboard, '/dead-letters/purge', { all: true }, foreign)).status).toBe(403);
    const crossSite = { ...ACTION, 'sec-fetch-site': 'cross-site' };
    expect((await post(dashboard, '/dead-letters/purge', { all: true }, crossSite)).status).toBe(403);
    const sameOrigin = { ...ACTION, origin: dashboard.url, 'sec-fetch-site': 'same-origin' };
    expect((await post(dashboard, '/dead-letters/purge', { all: true }, sameOrigin)).status).toBe(200);
    const empty = await post(dashboard, '/dead-letters/redrive', { filter: {} });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ code: 'COMMITBUS_DASHBOARD_REQUEST' });
    expect((await fetch(`${dashboard.url}/api/dead-letters/purge`)).status).toBe(404); // GET acts on nothing
  });

  it('pauses and resumes a handler through the API; an unknown handler is a 400 saying so', async () => {
    const handler = defineHandler('dashboard.api.notes', () => {});
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [handler] };
    const bus = buses.create({
      events: TEST_EVENTS,
      handlers,
      config: EMBEDDED,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    const dashboard = await open({ bus });
    const paused = await post(dashboard, '/rules', { action: 'pause', handler: 'dashboard.api.notes' });
    expect(await paused.json()).toMatchObject({ changed: true });
    expect(await bus.rules.list()).toMatchObject([
      { kind: 'pause', target: { handler: 'dashboard.api.notes' } },
    ]);
    expect(await (await fetch(`${dashboard.url}/`)).text()).toContain('<td>dashboard.api.notes</td>');
    const unknown = await post(dashboard, '/rules', { action: 'block', handler: 'no.such' });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: 'COMMITBUS_RULE_TARGET' });
    await post(dashboard, '/rules', { action: 'resume', handler: 'dashboard.api.notes' });
    expect(await bus.rules.list()).toEqual([]);
    // Both actions are in the audit trail, from the dashboard, newest first; the refused one is not.
    expect((await overview(dashboard)).audit).toMatchObject([
      { source: 'dashboard', action: 'rules.resume', target: 'handler:dashboard.api.notes', count: 1 },
      { source: 'dashboard', action: 'rules.pause', target: 'handler:dashboard.api.notes', count: 1 },
    ]);
    const page = await (await fetch(`${dashboard.url}/`)).text();
    expect(page).toMatch(
      /<tr data-action="[^"]+"><td><time[^>]*>[^<]+<\/time><\/td><td>[^<]+@[^<]+<\/td><td>dashboard<\/td><td>rules\.resume<\/td><td>handler:dashboard\.api\.notes<\/td><td class="n">1<\/td><\/tr>/,
    );
  });

  it('lists a halted order key and re-drives it: the handler runs again and the key goes on', async () => {
    let failing = true;
    const runs: string[] = [];
    const step = defineHandler<FlowStep>('dashboard.api.step', (event) => {
      runs.push(event.recid);
      if (failing && event.recid === 'a') throw new Error('step a failed');
    });
    const handlers: EventHandlersConfig = { 'FLOW.STEP': [{ handler: step, sync: true, attempts: 1 }] };
    const { bus } = await buses.start({
      events: [...TEST_EVENTS, FlowStep],
      handlers,
      config: EMBEDDED,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    const dashboard = await open({ bus });
    await bus.publish([flowStep('f1', 'a'), flowStep('f1', 'b')]);
    await waitFor('the halt', async () => (await overview(dashboard)).halted.length === 1);
    expect((await overview(dashboard)).halted).toMatchObject([
      { key: 'flow:f1', error: 'step a failed', waiting: 2 },
    ]);
    expect(await (await fetch(`${dashboard.url}/`)).text()).toContain('data-key="flow:f1"');
    failing = false;
    expect(await (await post(dashboard, '/ordering/redrive', { key: 'flow:f1' })).json()).toMatchObject({
      lanes: 1,
    });
    await bus.whenIdle(10_000);
    expect(runs).toEqual(['a', 'a', 'b']);
    expect((await overview(dashboard)).halted).toEqual([]);
  });

  it("lists the router's subscribers and their queues, never their signing secrets", async () => {
    // The router keeps its records on Redis only.
    const bus = buses.create({
      events: TEST_EVENTS,
      config: { ...EMBEDDED, prefix: redisBed.prefix },
      transport: testRedis(),
    });
    const router = bus.router;
    await router.subscribers.saveSubscriber({
      name: 'billing',
      callback: 'https://billing.test/hook',
      uuid: 'u-1',
      maxEvents: 10,
      timeoutMs: 0,
      topics: ['records'],
    });
    await router.subscribers.addSigningSecret('billing', 'whsec_secret');
    const dashboard = await open({ bus, router });
    expect((await overview(dashboard)).subscribers).toMatchObject([
      { name: 'billing', callback: 'https://billing.test/hook', topics: ['records'], paused: false },
    ]);
    const page = await (await fetch(`${dashboard.url}/`)).text();
    expect(page).toContain('<td>billing</td>');
    expect(page).not.toContain('whsec_secret');
    expect(JSON.stringify(await overview(dashboard))).not.toContain('whsec_secret');
  });

  it('asks for Basic credentials when given some, and honours an auth hook', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      config: EMBEDDED,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    const dashboard = await open({
      bus,
      basicAuth: { username: 'ops', password: 'pa:ss' },
      auth: ({ headers }) => headers['x-team'] !== 'intruders',
    });
    const without = await fetch(`${dashboard.url}/`);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toContain('Basic');
    const wrong = `Basic ${Buffer.from('ops:nope').toString('base64')}`;
    expect((await fetch(`${dashboard.url}/`, { headers: { authorization: wrong } })).status).toBe(401);
    const right = `Basic ${Buffer.from('ops:pa:ss').toString('base64')}`;
    expect((await fetch(`${dashboard.url}/api/overview`, { headers: { authorization: right } })).status).toBe(
      200,
    );
    const refused = await fetch(`${dashboard.url}/`, {
      headers: { authorization: right, 'x-team': 'intruders' },
    });
    expect(refused.status).toBe(403);
    // An action is recorded as the Basic user's, never with the password.
    const purged = await post(
      dashboard,
      '/dead-letters/purge',
      { all: true },
      { ...ACTION, authorization: right },
    );
    expect(await purged.json()).toMatchObject({ purged: 0 });
    const [action] = await bus.audit.list();
    expect(action).toMatchObject({
      actor: 'ops',
      source: 'dashboard',
      action: 'dead-letters.purge',
      count: 0,
    });
    expect(JSON.stringify(action)).not.toContain('pa:ss');
  });

  it('throws BullBoardMissingError saying what to install when bull-board is not there', async () => {
    const missing = { ...BULL_BOARD_MODULES, fastify: '@bull-board/not-installed-here' };
    const error = await loadBullBoard(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BullBoardMissingError);
    expect(isCommitbusError(error)).toBe(true);
    expect((error as BullBoardMissingError).code).toBe('COMMITBUS_BULL_BOARD_MISSING');
    expect((error as Error).message).toContain('npm install @bull-board/api @bull-board/fastify');
  });
});

describe('the dashboard with an event store (SQLite)', () => {
  const bed = new StoreBed('sqlite', 'unused');
  beforeEach(() => bed.open());
  afterEach(() => bed.close());

  it('shows its version and halt, and skips the halted event from the API', async () => {
    const broken = defineModel({
      name: 'broken',
      entity: ItemEntity,
      reducers: {
        'ITEM.BAD': (_event: StoreEvent) => {
          throw new Error('cannot <b>reduce</b>');
        },
      },
    });
    const store = await bed.start({ models: [items, broken], retryDelayMs: 60_000, maxRetryDelayMs: 60_000 });
    const bus = buses.create({
      events: TEST_EVENTS,
      config: EMBEDDED,
      transport: sqliteTransport({ pollMs: 20 }),
    });
    const dashboard = await open({ bus, eventStore: store });
    await store.subscriptions.start({
      name: 'mailer',
      maxAttempts: 1,
      handle: () => {
        throw new Error('mailer is <i>down</i>');
      },
    });
    await store.dispatch('ITEM.RESULT', { ins: [{ id: 'a', name: 'a', qty: 1 }] });
    await store.dispatch('ITEM.BAD', { x: 1 }, { wait: false });
    await store.dispatch('ITEM.RESULT', { ins: [{ id: 'b', name: 'b', qty: 1 }] }, { wait: false });
    await waitFor(
      'the halts',
      async () => {
        const view = (await overview(dashboard)).eventStore;
        return view?.halted !== undefined && view.haltedSubscriptions.length === 1;
      },
      { describe: async () => (await overview(dashboard)).eventStore },
    );
    expect((await overview(dashboard)).eventStore).toMatchObject({
      version: 1,
      queued: 2,
      writerHere: true,
      halted: { v: 2, type: 'ITEM.BAD' },
      haltedSubscriptions: [{ name: 'mailer', v: 1, error: 'Error: mailer is <i>down</i>' }],
    });
    const page = await (await fetch(`${dashboard.url}/`)).text();
    expect(page).toContain('cannot &lt;b&gt;reduce&lt;/b&gt;');
    // Both halts are flagged at the top of the page, in words.
    expect(page).toContain(
      '<li class="attention" data-attention="event-store-halted"><span class="label">halted</span>Event store halted at v2 (ITEM.BAD).</li>',
    );
    expect(page).toContain(
      '<span class="label">halted</span>Event store subscription mailer halted at v1.</li>',
    );
    expect(page).toContain('<td class="error">Error: mailer is &lt;i&gt;down&lt;/i&gt;</td>');
    expect(page).toContain('<dd id="es-queued">2</dd>');
    expect(await (await post(dashboard, '/event-store/skip', { v: 2 })).json()).toMatchObject({ v: 2 });
    await waitFor(
      'v2 skipped and v3 handled',
      async () => (await overview(dashboard)).eventStore?.version === 3,
    );
    expect((await overview(dashboard)).eventStore?.queued).toBe(0);
    expect((await overview(dashboard)).eventStore?.halted).toBeUndefined();
    const noStore = await open({ bus });
    expect((await post(noStore, '/event-store/retry', {})).status).toBe(400);
  });
});
