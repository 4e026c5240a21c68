/**
 * The overview page live, in a real headless Chromium on Redis with a real
 * bus and worker: it reads itself again every `refreshMs` and the numbers
 * change without a reload (an operator's typed filter kept), "updated at"
 * advances, a dashboard that stops answering shows stale; the history
 * charts draw the minutes of `GET api/history`; bull-board is read-only by
 * default (a pause refused, the queue running) and a paused queue is flagged.
 */
import { describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/bus/event-bus.js';
import { startDashboard } from '../../src/dashboard/index.js';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { chromiumForFile } from '../helpers/chromium.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = redisTestBed('dash-live');

/** The little of the browser's globals the page functions below read (the tests compile without the DOM's types). */
interface Dom {
  document: {
    activeElement: { getAttribute(name: string): string | null } | null;
    querySelector(selector: string): { textContent: string | null } | null;
    body: { classList: { contains(name: string): boolean } };
  };
  __kept?: boolean;
  __charts?: Record<string, { points: number; last: (number | null)[]; totals: number[] }>;
}

/** A minute of `GET api/history`, as JSON. */
interface Minute {
  minute: string;
  published: number;
  backlog: number | null;
}

/** How many pixels of the canvas `selector` names are painted (run in the page). */
function paintedPixels(selector: string): number {
  const canvas = (globalThis as unknown as CanvasDom).document.querySelector(selector);
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  let painted = 0;
  for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) painted++;
  return painted;
}

interface CanvasDom {
  document: {
    querySelector(selector: string): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      };
    };
  };
}
const browser = chromiumForFile();

const failing = defineHandler<RecordCreated>('live.failing', () => {
  throw new Error('live.failing is down');
});
const handlers: EventHandlersConfig = { 'RECORD.CREATE': [{ handler: failing, attempts: 1 }] };

async function startBus(name: string): Promise<EventBus> {
  const config = fastConfig({ prefix: bed.prefix, name });
  return (await bed.buses.start({ events: TEST_EVENTS, handlers, config, transport: testRedis() })).bus;
}

describe('the live overview page', () => {
  it('updates its numbers in place after events are published, keeps a typed filter, and shows stale once the dashboard is gone', async () => {
    const bus = await startBus('live');
    const dashboard = await startDashboard({ bus, refreshMs: 150 });
    const page = await browser().context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    try {
      await page.goto(`${dashboard.url}/`);
      const deadLetters = page.locator('dd[data-field="dead-letters"]');
      expect(await deadLetters.textContent()).toBe('0');
      expect(await page.locator('#all-clear').isVisible()).toBe(true);
      const updatedAt = async () => Number(await page.locator('#live').getAttribute('data-updated-at'));
      const first = await updatedAt();
      expect(await page.locator('#live').textContent()).toMatch(/^updated at \d\d:\d\d:\d\d$/);

      // The operator types into the rules form; a rule set elsewhere re-renders its section meanwhile.
      const input = page.locator('#rules-section form input[name="handler"]');
      await input.fill('half.typed');
      await bus.rules.pause({ handlingKey: 'RECORD.PUBLISH' });
      await page.locator('#rules td', { hasText: 'RECORD.PUBLISH' }).waitFor();
      expect(await input.inputValue()).toBe('half.typed');
      await expect
        .poll(() =>
          page.evaluate(() => (globalThis as unknown as Dom).document.activeElement?.getAttribute('name')),
        )
        .toBe('handler');

      // A marker on the window survives only if the page never reloads.
      await page.evaluate(() => {
        (globalThis as unknown as Dom).__kept = true;
      });
      await Promise.all(['l1', 'l2', 'l3'].map((id) => bus.publish(recordCreated(id))));
      await waitFor('three letters', async () => (await bus.deadLetters.list()).length === 3);
      await page.waitForFunction(
        () =>
          (globalThis as unknown as Dom).document.querySelector('dd[data-field="dead-letters"]')
            ?.textContent === '3',
        undefined,
        { timeout: 10_000 },
      );
      expect(await page.evaluate(() => (globalThis as unknown as Dom).__kept)).toBe(true);
      expect(await updatedAt()).toBeGreaterThan(first);
      // Dead letters that grew while the page watched are flagged, in words too, and the count marked as changed.
      const growing = page.locator('#dead-letters-growing');
      expect(await growing.textContent()).toBe(
        'growingDead letters growing: +3 seen by this page in the last 5 minutes.',
      );
      expect(await page.locator('#all-clear').isVisible()).toBe(false);
      expect(await page.locator('#attention-count').textContent()).toBe('2');
      expect(await page.locator('#attention li[data-attention="rules"]').textContent()).toBe(
        'rules1 pause or block rule(s) in force: pause RECORD.PUBLISH.',
      );
      expect(
        await page.locator('#handlers tr', { hasText: 'live.failing' }).locator('td').last().textContent(),
      ).toBe('3');
      expect(await input.inputValue()).toBe('half.typed');

      // The dashboard stops: the page says it is stale and keeps what it showed.
      await dashboard.close();
      await page.locator('#live.stale').waitFor({ timeout: 10_000 });
      expect(await page.locator('#live').textContent()).toMatch(
        /^stale: the dashboard does not answer \(showing \d\d:\d\d:\d\d\)$/,
      );
      expect(
        await page.evaluate(() => (globalThis as unknown as Dom).document.body.classList.contains('stale')),
      ).toBe(true);
      expect(await deadLetters.textContent()).toBe('3');
      // Nothing the page does is refused by its Content-Security-Policy (uPlot's files included).
      expect(errors.filter((e) => e.includes('Content Security Policy'))).toEqual([]);
    } finally {
      await page.close();
      await dashboard.close();
    }
  });

  it('shows stale while the dashboard refuses to answer, and live again once it answers', async () => {
    const bus = await startBus('refusing');
    let allowed = true;
    const dashboard = await startDashboard({ bus, refreshMs: 100, auth: () => allowed });
    const page = await browser().context.newPage();
    try {
      await page.goto(`${dashboard.url}/`);
      allowed = false;
      await page.locator('#live.stale').waitFor({ timeout: 10_000 });
      expect(await page.locator('#live').textContent()).toMatch(
        /^stale: the dashboard answered HTTP 403 \(showing \d\d:\d\d:\d\d\)$/,
      );
      allowed = true;
      await page.locator('#live:not(.stale)').waitFor({ timeout: 10_000 });
      expect(await page.locator('#live').textContent()).toMatch(/^updated at \d\d:\d\d:\d\d$/);
      expect(
        await page.evaluate(() => (globalThis as unknown as Dom).document.body.classList.contains('stale')),
      ).toBe(false);
    } finally {
      await page.close();
      await dashboard.close();
    }
  });

  it('says "No history yet" before the bus recorded a minute, then draws the charts from GET api/history and updates them in place', async () => {
    const config = fastConfig({ prefix: bed.prefix, name: 'charts', history: { flushEveryMs: 30 } });
    // No worker yet: nothing counted, no backlog sampled.
    const bus = bed.buses.create({ events: TEST_EVENTS, handlers, config, transport: testRedis() });
    const dashboard = await startDashboard({ bus, refreshMs: 150 });
    const page = await browser().context.newPage();
    try {
      const empty = (await (await fetch(`${dashboard.url}/api/history`)).json()) as { points: Minute[] };
      expect(empty.points).toHaveLength(1440);
      expect(empty.points.every((p) => p.published === 0 && p.backlog === null)).toBe(true);
      await page.goto(`${dashboard.url}/`);
      await page.locator('#no-history', { hasText: 'No history yet.' }).waitFor();
      expect(await page.locator('[data-chart]:not([hidden])').count()).toBe(0);

      await bus.startWorker({ handleSignals: false });
      await Promise.all(['c1', 'c2', 'c3'].map((id) => bus.publish(recordCreated(id))));
      const totals = () => page.evaluate(() => (globalThis as unknown as Dom).__charts?.throughput?.totals);
      await expect.poll(totals, { timeout: 10_000 }).toEqual([3, 0]);
      const throughput = page.locator('#chart-throughput');
      expect(await throughput.getAttribute('data-points')).toBe('1440');
      expect(await throughput.getAttribute('data-series')).toBe('2');
      expect(await page.locator('#no-history').isHidden()).toBe(true);
      for (const id of ['throughput', 'failures', 'dead-letters', 'backlog', 'backlog-age']) {
        expect(await page.locator(`#chart-${id} canvas`).count()).toBe(1);
      }
      expect(await page.evaluate(paintedPixels, '#chart-throughput canvas')).toBeGreaterThan(100);
      // Each run failed and was dead-lettered: the other charts have them too.
      const chart = (id: string) =>
        page.evaluate((name) => (globalThis as unknown as Dom).__charts?.[name]?.totals, id);
      await expect.poll(() => chart('dead-letters'), { timeout: 10_000 }).toEqual([3]);
      expect(await chart('failures')).toEqual([3, 0]);

      // GET api/history says the same minutes.
      const api = (await (await fetch(`${dashboard.url}/api/history`)).json()) as { points: Minute[] };
      expect(api.points.reduce((sum, p) => sum + p.published, 0)).toBe(3);
      expect(api.points.at(-1)?.minute).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);

      // A new event is drawn at the next read, with no reload.
      await bus.publish(recordCreated('c4'));
      await expect.poll(totals, { timeout: 10_000 }).toEqual([4, 0]);
    } finally {
      await page.close();
      await dashboard.close();
    }
  });

  it('serves uPlot under its base path with a cache header', async () => {
    const bus = await startBus('assets');
    const dashboard = await startDashboard({ bus, basePath: '/ops' });
    try {
      const script = await fetch(`${dashboard.url}/assets/uplot.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(script.headers.get('cache-control')).toBe('public, max-age=86400');
      expect(await script.text()).toContain('uPlot');
      const style = await fetch(`${dashboard.url}/assets/uplot.css`);
      expect(style.headers.get('content-type')).toMatch(/^text\/css/);
      expect(await style.text()).toContain('.uplot');
      expect((await fetch(`${dashboard.url}/assets/other.js`)).status).toBe(404);
    } finally {
      await dashboard.close();
    }
  });
});

describe('bull-board on the dashboard', () => {
  it('is read-only by default: a pause is refused and the queue keeps running', async () => {
    const bus = await startBus('readonly');
    const dashboard = await startDashboard({ bus });
    try {
      const queues = bus.transport.bullmqQueues ?? [];
      const drain = queues[0];
      expect(drain).toBeDefined();
      const answer = await fetch(`${dashboard.url}/queues/api/queues/${drain?.name}/pause`, {
        method: 'PUT',
      });
      expect(answer.status).toBe(405);
      expect(await drain?.isPaused()).toBe(false);
      const page = await (await fetch(`${dashboard.url}/`)).text();
      expect(page).toContain('<span class="meta" id="bull-board-mode">read-only</span>');
    } finally {
      await dashboard.close();
    }
  });

  it('with { readOnly: false } takes a pause, and the overview flags the paused queue in words', async () => {
    const bus = await startBus('writable');
    const dashboard = await startDashboard({ bus, bullBoard: { readOnly: false }, refreshMs: 150 });
    const page = await browser().context.newPage();
    const queue = (bus.transport.bullmqQueues ?? [])[1];
    try {
      await page.goto(`${dashboard.url}/`);
      expect(await page.locator('#bull-board-mode').textContent()).toBe('writable');
      const answer = await fetch(`${dashboard.url}/queues/api/queues/${queue?.name}/pause`, {
        method: 'PUT',
      });
      expect(answer.status).toBe(200);
      expect(await queue?.isPaused()).toBe(true);
      const flag = page.locator('#attention li[data-attention="paused-queues"]');
      await flag.waitFor({ timeout: 10_000 });
      expect(await flag.textContent()).toBe(
        `pausedBullMQ queue(s) paused: ${queue?.name} (their jobs wait until resumed).`,
      );
      expect(await page.locator(`#queues tr[data-queue="${queue?.name}"] td`).nth(1).textContent()).toBe(
        'pausedno job taken until resumed',
      );
    } finally {
      await queue?.resume();
      await page.close();
      await dashboard.close();
    }
  });
});
