/**
 * The dead-letter browser's API over real HTTP, on the embedded transport
 * (SQLite in memory) and on Redis: 1,200 letters paged newest first past
 * 1,000 by cursor, filters, the grouped view's counts, a letter's detail with
 * every attempt and stack, and bulk purge by dry run and confirmation that
 * acts only on what the dry run counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/index.js';
import type { DeadLetter } from '../../src/dead-letters/dead-letter.js';
import type { EventBus } from '../../src/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { letter } from '../conformance/dead-letter-store/letters.js';
import { Buses } from '../helpers/buses.js';
import { TEST_EVENTS } from '../helpers/events.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';

const buses = new Buses();
const redisBed = redisTestBed('dletters-browser');
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
  await buses.closeAll();
});

const ACTION = { 'content-type': 'application/json', 'x-commitbus-dashboard': '1' };
const CONFIG = { scheduleEveryMs: 0, blockMs: 20, name: 'dletters-browser' } as const;

const TRANSPORTS = [
  { name: 'sqlite', transport: () => sqliteTransport({ pollMs: 20 }), config: CONFIG },
  { name: 'redis', transport: () => testRedis(), config: { ...CONFIG, prefix: redisBed.prefix } },
];

type Json = Record<string, unknown>;
let n = 0;

async function getJson(dashboard: RunningDashboard, path: string): Promise<Json> {
  const response = await fetch(`${dashboard.url}/api/dead-letters/${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

async function bulk(dashboard: RunningDashboard, body: object): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${dashboard.url}/api/dead-letters/bulk`, {
    method: 'POST',
    headers: ACTION,
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

describe.each(TRANSPORTS)('the dead-letter browser on $name', ({ transport, config }) => {
  async function open(): Promise<{ bus: EventBus; dashboard: RunningDashboard }> {
    // A bus name of its own each test: Redis keeps the letters of the one before under the same prefix.
    const bus = buses.create({
      events: TEST_EVENTS,
      config: { ...config, name: `dletters-${n++}` },
      transport: transport(),
    });
    const dashboard = await startDashboard({ bus });
    dashboards.push(dashboard);
    return { bus, dashboard };
  }

  it('pages 1,200 letters newest first past 1,000 by cursor, each once, and keeps to the filter', {
    timeout: 60_000,
  }, async () => {
    const { bus, dashboard } = await open();
    // 400 letters share one millisecond: the cursor orders ties by id.
    const letters = Array.from({ length: 1_200 }, (_, i) =>
      letter(`e${i}.${i % 4 === 0 ? 'billing' : 'emails'}`, i < 400 ? 0 : i, {
        error: i % 3 === 0 ? 'ECONNREFUSED 10.0.0.7' : 'timeout',
      }),
    );
    await bus.transport.deadLetters.add(letters);
    const seen: DeadLetter[] = [];
    let next: unknown = '';
    let pages = 0;
    do {
      const page = await getJson(dashboard, `page?limit=500&after=${encodeURIComponent(String(next))}`);
      seen.push(...(page.letters as DeadLetter[]));
      next = page.next;
      pages++;
    } while (next !== null);
    expect(pages).toBe(3);
    expect(seen.length).toBe(1_200);
    expect(new Set(seen.map((l) => l.id)).size).toBe(1_200);
    const times = seen.map((l) => Date.parse(String(l.deadAt)));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(seen[0]?.id).toBe('e1199.emails');

    const filtered = await getJson(dashboard, 'page?limit=1000&handler=billing&error=ECONNREFUSED');
    const expected = letters.filter((l) => l.handler === 'billing' && l.error.startsWith('ECONN'));
    expect((filtered.letters as DeadLetter[]).map((l) => l.id).sort()).toEqual(
      expected.map((l) => l.id).sort(),
    );
    expect(filtered.next).toBeNull();
    const bad = await fetch(`${dashboard.url}/api/dead-letters/page?after=yesterday`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).message).toContain('after must be a cursor');
  });

  it('groups letters by handler and first line of error, with counts and first and last seen', async () => {
    const { bus, dashboard } = await open();
    await bus.transport.deadLetters.add([
      letter('a1.billing', 10, { error: 'ECONNREFUSED 10.0.0.7\n    at connect (net.js:1)' }),
      letter('a2.billing', 20, { error: 'ECONNREFUSED 10.0.0.7\n    at other (net.js:9)' }),
      letter('a3.billing', 30, { error: 'ECONNREFUSED 10.0.0.7' }),
      letter('a4.billing', 40, { error: 'card declined' }),
      letter('a5.emails', 50, { error: 'ECONNREFUSED 10.0.0.7' }),
    ]);
    const view = await getJson(dashboard, 'groups');
    expect(view.scanned).toBe(5);
    expect(view.groups).toEqual([
      {
        handler: 'billing',
        message: 'ECONNREFUSED 10.0.0.7',
        count: 3,
        firstSeen: letter('x.y', 10).deadAt.toISOString(),
        lastSeen: letter('x.y', 30).deadAt.toISOString(),
      },
      expect.objectContaining({ handler: 'emails', message: 'ECONNREFUSED 10.0.0.7', count: 1 }),
      expect.objectContaining({ handler: 'billing', message: 'card declined', count: 1 }),
    ]);
    const page = await (await fetch(`${dashboard.url}/dead-letters?view=groups`)).text();
    expect(page).toContain('<td class="n">3</td>');
  });

  it('counts a group in a dry run, and purges on confirmation only what the dry run counted', async () => {
    const { bus, dashboard } = await open();
    const group = { handler: 'billing', message: 'ECONNREFUSED 10.0.0.7' };
    await bus.transport.deadLetters.add([
      letter('a1.billing', 10, { error: 'ECONNREFUSED 10.0.0.7\nat connect' }),
      letter('a2.billing', 20, { error: 'ECONNREFUSED 10.0.0.7' }),
      letter('a3.billing', 30, { error: 'card declined' }),
      letter('a4.emails', 40, { error: 'ECONNREFUSED 10.0.0.7' }),
    ]);
    const dry = await bulk(dashboard, { action: 'purge', filter: {}, group, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.json).toMatchObject({
      count: 2,
      message: "Purge 2 dead letters of handler billing with error 'ECONNREFUSED 10.0.0.7'?",
    });
    const preview = { count: dry.json.count, notAfter: dry.json.notAfter, digest: dry.json.digest };
    expect((await bus.deadLetters.list()).length).toBe(4);

    // A letter of the group arriving after the preview: newer than it, so left alone.
    await bus.transport.deadLetters.add([letter('a5.billing', 50, { error: 'ECONNREFUSED 10.0.0.7' })]);
    const done = await bulk(dashboard, { action: 'purge', filter: {}, group, preview });
    expect(done).toEqual({ status: 200, json: { purged: 2, message: 'purged 2 dead letter(s)' } });
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual([
      'a3.billing',
      'a4.emails',
      'a5.billing',
    ]);
    // The trail names the group the operator chose, not the ids it came to.
    expect((await bus.audit.list())[0]).toMatchObject({
      action: 'dead-letters.purge',
      target: JSON.stringify(group),
      count: 2,
      source: 'dashboard',
    });

    // A letter that arrived inside the previewed window (given up earlier, stored late): nothing is done.
    const again = await bulk(dashboard, { action: 'purge', filter: { handler: 'billing' }, dryRun: true });
    expect(again.json.count).toBe(2);
    await bus.transport.deadLetters.add([letter('a0.billing', 5, { error: 'late' })]);
    const stale = await bulk(dashboard, {
      action: 'purge',
      filter: { handler: 'billing' },
      preview: { count: again.json.count, notAfter: again.json.notAfter, digest: again.json.digest },
    });
    expect(stale.status).toBe(409);
    expect(stale.json.code).toBe('COMMITBUS_DASHBOARD_SELECTION_CHANGED');
    expect((await bus.deadLetters.list()).length).toBe(4);

    const blind = await bulk(dashboard, { action: 'purge', filter: { handler: 'billing' } });
    expect(blind.status).toBe(400);
    expect(blind.json.message).toContain('send { dryRun: true } first');
    expect((await bus.deadLetters.list()).length).toBe(4);
  });

  it("shows a letter with every attempt's time, error and stack, and its payload as text", async () => {
    const { bus, dashboard } = await open();
    const at = letter('x.y', 0).deadAt;
    await bus.transport.deadLetters.add([
      letter('d1.billing', 100, {
        payload: '{"title":"<script>alert(1)</script>"}',
        attempts: [
          {
            attempt: 1,
            at,
            error: 'first down',
            name: 'Error',
            stack: 'Error: first down\n    at one (a.js:1)',
          },
          {
            attempt: 2,
            at,
            error: 'second <b>down</b>',
            name: 'TypeError',
            stack: 'TypeError: second\n    at two (b.js:2)',
          },
        ],
        error: 'second <b>down</b>',
      }),
    ]);
    const detail = await getJson(dashboard, 'letter?id=d1.billing');
    expect((detail.attempts as Json[]).map((a) => a.stack)).toEqual([
      'Error: first down\n    at one (a.js:1)',
      'TypeError: second\n    at two (b.js:2)',
    ]);
    expect((await fetch(`${dashboard.url}/api/dead-letters/letter?id=nope.x`)).status).toBe(404);
    const page = await (await fetch(`${dashboard.url}/dead-letters?id=d1.billing`)).text();
    expect(page).toContain('at one (a.js:1)');
    expect(page).toContain('at two (b.js:2)');
    expect(page).toContain('second &lt;b&gt;down&lt;/b&gt;');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert(1)');
  });
});
