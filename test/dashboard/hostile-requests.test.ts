/**
 * The operations endpoints against hostile or malformed requests over real
 * HTTP on Redis: bad query strings answer 400 with a code, markup in handler
 * names and errors is escaped in the pages, bulk actions refuse without the
 * guard header, with the wrong content type or a forged preview, and two
 * confirmations of one preview sent at once re-drive each letter once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/index.js';
import { defineHandler, type EventBus, type EventHandlersConfig } from '../../src/index.js';
import { letter } from '../conformance/dead-letter-store/letters.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { deleteKeys, openRedis, testPrefix } from '../helpers/redis.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

// One bus for the file (the tests run in order on its letters), not a bed's bus closed after each test.
const prefix = testPrefix('hostile');
const buses = new Buses();
const ACTION = { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' };
const XSS = '<script>window.__pwned=1</script><img src=x onerror=alert(1)>';
const LETTERS = 8;

let failing = true;
const ran: string[] = [];
let bus: EventBus;
let dashboard: RunningDashboard;

beforeAll(async () => {
  const hostile = defineHandler<RecordCreated>('hostile.h', (event) => {
    ran.push(event.recid);
    if (failing) throw new Error(`${XSS}\n    at x`);
  });
  const handlers: EventHandlersConfig = { 'RECORD.CREATE': [{ handler: hostile, attempts: 1 }] };
  const config = fastConfig({ prefix, name: 'hostile' });
  ({ bus } = await buses.start({ events: TEST_EVENTS, handlers, config, transport: testRedis() }));
  for (let i = 0; i < LETTERS; i++) await bus.publish(recordCreated(`r${i}`));
  await waitFor('the letters', async () => (await bus.deadLetters.list()).length === LETTERS);
  dashboard = await startDashboard({ bus });
}, 30_000);
afterAll(async () => {
  await dashboard?.close();
  await buses.closeAll();
  const redis = openRedis();
  await deleteKeys(redis, prefix);
  await redis.quit();
});

async function status(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${dashboard.url}${path}`, init);
  return {
    status: response.status,
    json: (await response.json().catch(() => ({}))) as Record<string, unknown>,
  };
}

const bulk = (body: unknown, headers: Record<string, string> = ACTION) =>
  status('/api/dead-letters/bulk', { method: 'POST', headers, body: JSON.stringify(body) });

describe('hostile requests to the operations endpoints', () => {
  it.each([
    'page?limit=1e9',
    'page?limit=-1',
    'page?limit=NaN',
    'page?limit=1.5',
    'page?limit=1e2',
    'page?limit=0x10',
    'page?after=garbage',
    'page?after=99999999999999999999,x',
    'page?handler=a&handler=b',
    'groups?error=a&error=b',
    'letter?id=a&id=b',
    'letter',
    '../dead-letters?limit=0x10',
    '../dead-letters?limit=1e2',
  ])('answers GET %s with a coded 400', async (query) => {
    const answer = await status(`/api/dead-letters/${query}`);
    expect(answer.status).toBe(400);
    expect(answer.json.code).toMatch(/^COMMITBUS_/);
  });

  it("reads a long unicode filter, and answers one past Node's header limit with 431", async () => {
    const long = (n: number) => `/api/dead-letters/page?error=${encodeURIComponent('é🙂'.repeat(n))}`;
    expect(await status(long(400))).toEqual({ status: 200, json: { letters: [], next: null } });
    expect((await status(long(2_000))).status).toBe(431);
  });

  it('escapes markup in handler names and errors on the pages', async () => {
    // A handler name no handler may have, as a store written by another version could hold.
    const odd = letter('ex.hostile<b>x', 1, { error: XSS, payload: XSS, handlingKey: XSS });
    await bus.transport.deadLetters.add([odd]);
    // And an audit actor with markup and a line break, shown in the page's trail.
    await bus.rules.pause({ handler: 'hostile.h' }, { actor: `${XSS}\nforged line` });
    await bus.rules.resume({ handler: 'hostile.h' });
    const [first] = await bus.deadLetters.list({ limit: 1 });
    for (const path of [
      '/dead-letters',
      '/dead-letters?view=groups',
      `/dead-letters?handler=${encodeURIComponent(XSS)}`,
      `/dead-letters/letter?id=${encodeURIComponent(first?.id ?? '')}`,
      `/dead-letters/letter?id=${encodeURIComponent(odd.id)}`,
      `/dead-letters?after=${encodeURIComponent(XSS)}`,
      '/router',
      '/',
    ]) {
      const page = await (await fetch(`${dashboard.url}${path}`)).text();
      expect(page, path).not.toContain('<script>window.__pwned');
      expect(page, path).not.toContain('<img src=x');
      expect(page, path).not.toContain('hostile<b>x');
    }
    expect(await (await fetch(`${dashboard.url}/`)).text()).toContain('&lt;script&gt;window.__pwned');
    expect(await bus.deadLetters.purge(odd.id)).toBe(1);
  });

  it('refuses a bulk action without the guard header, as text/plain, or too big', async () => {
    expect(
      (await bulk({ action: 'purge', dryRun: true }, { 'content-type': 'application/json' })).status,
    ).toBe(403);
    const text = await bulk(
      { action: 'purge', dryRun: true },
      { 'content-type': 'text/plain', 'x-commitbus-dashboard': '1' },
    );
    expect(text).toMatchObject({ status: 400, json: { code: 'COMMITBUS_DASHBOARD_REQUEST' } });
    const huge = await bulk({ action: 'purge', dryRun: true, pad: 'x'.repeat(200_000) });
    expect(huge.status).toBe(413);
    expect((await bulk([1, 2])).status).toBe(400);
    expect((await bulk({ action: 'explode', dryRun: true })).status).toBe(400);
    expect((await bus.deadLetters.list()).length).toBe(LETTERS);
  });

  it('refuses a confirmation with a forged digest or count, acting on nothing', async () => {
    const dry = await bulk({ action: 'purge', dryRun: true });
    expect(dry.json.count).toBe(LETTERS);
    const { count, notAfter, digest } = dry.json;
    for (const preview of [
      { count, notAfter, digest: '0'.repeat(32) },
      { count: 1, notAfter, digest },
      { count, notAfter: 0, digest },
      { count: 'all', notAfter, digest },
      { count, notAfter: 1e300, digest },
    ]) {
      const answer = await bulk({ action: 'purge', preview });
      expect([400, 409], JSON.stringify(preview)).toContain(answer.status);
    }
    expect((await bus.deadLetters.list()).length).toBe(LETTERS);
  });

  it('re-drives each letter once when one preview is confirmed twice at the same time', async () => {
    const dry = await bulk({ action: 'redrive', dryRun: true });
    expect(dry.json.count).toBe(LETTERS);
    const { count, notAfter, digest } = dry.json;
    failing = false;
    ran.length = 0;
    const answers = await Promise.all(
      [1, 2, 3].map(() => bulk({ action: 'redrive', preview: { count, notAfter, digest } })),
    );
    await waitFor('the re-driven runs', () => ran.length >= LETTERS);
    await bus.whenIdle(10_000);
    const redriven = answers.map((a) => Number(a.json.redriven ?? 0));
    expect(redriven.reduce((a, b) => a + b, 0)).toBe(LETTERS);
    expect(ran.length).toBe(LETTERS);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 409)).toBe(true);
  });
});
