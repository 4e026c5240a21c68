/**
 * The operations dashboard in a real headless Chromium, on Redis with a real
 * bus and worker: a dead letter listed (its hostile payload as text),
 * re-driven by a click, and bull-board's page for the bus's queues.
 */
import { describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/index.js';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { chromiumForFile } from '../helpers/chromium.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { deadLetterKeys } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = redisTestBed('i12dashboard-page');
const browser = chromiumForFile();

/** A payload that would run script if the page put it into the DOM as markup. */
const HOSTILE = `<img src=x onerror="window.__xss='img'"><script>window.__xss='script'</script>`;

describe('the dashboard in Chromium', () => {
  it('lists a dead letter with its payload as text, and one click re-drives it: the handler runs again and the letter is gone from Redis', async () => {
    let failing = true;
    let calls = 0;
    const flaky = defineHandler<RecordCreated>('dashboard.flaky', () => {
      calls++;
      if (failing) throw new Error('flaky is down <b>bold?</b>');
    });
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [{ handler: flaky, attempts: 1 }] };
    const config = fastConfig({ prefix: bed.prefix, name: 'page' });
    const { bus } = await bed.buses.start({ events: TEST_EVENTS, handlers, config, transport: testRedis() });
    const event = recordCreated('r1');
    event.title = HOSTILE;
    await bus.publish(event);
    await waitFor('the letter', async () => (await bus.deadLetters.list()).length === 1);
    expect(calls).toBe(1);

    const dashboard = await startDashboard({ bus });
    const page = await browser().context.newPage();
    try {
      await page.goto(`${dashboard.url}/`);
      const row = page.locator(`tr[data-letter="${event.id}.dashboard.flaky"]`);
      await row.waitFor();
      expect(await row.locator('td.error').textContent()).toBe('flaky is down <b>bold?</b>');
      // The payload is shown as the text it is: no element from it, no script run.
      expect(await row.locator('pre.payload').textContent()).toContain(HOSTILE.replace(/"/g, '\\"'));
      expect(await page.locator('main img, main b, main script').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __xss?: string }).__xss)).toBeUndefined();
      // bus.status()'s per-handler counts: the letter is the handler's.
      const flakyRow = page.locator('#handlers tr', { hasText: 'dashboard.flaky' });
      expect(await flakyRow.locator('td').allTextContents()).toEqual([
        'dashboard.flaky',
        '0',
        '0',
        '0',
        '0',
        '1',
      ]);

      failing = false;
      await row.getByRole('button', { name: 'Re-drive' }).click();
      await page.locator('#status', { hasText: 're-drove 1 dead letter(s)' }).waitFor();
      await row.waitFor({ state: 'detached' });
      expect(await page.locator('#dead-letter-section .empty').textContent()).toBe('No dead letters.');
      expect(await flakyRow.locator('td').last().textContent()).toBe('0');
      await waitFor('the re-driven run', () => calls === 2);
      await bus.whenIdle(10_000);
      expect(await bus.deadLetters.list()).toEqual([]);
      expect(await deadLetterKeys(bed.redis, { redis: { prefix: bed.prefix }, name: 'page' })).toBe(0);
      expect(calls).toBe(2);
    } finally {
      await page.close();
      await dashboard.close();
    }
  });

  it('purges the letters matching a filter after asking, and keeps the others', async () => {
    const failing = (name: string) =>
      defineHandler<RecordCreated>(name, () => {
        throw new Error(`${name} is down`);
      });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        { handler: failing('dashboard.mail'), attempts: 1 },
        { handler: failing('dashboard.ledger'), attempts: 1 },
      ],
    };
    const config = fastConfig({ prefix: bed.prefix, name: 'purge' });
    const { bus } = await bed.buses.start({ events: TEST_EVENTS, handlers, config, transport: testRedis() });
    const event = recordCreated('p1');
    await bus.publish(event);
    await waitFor('two letters', async () => (await bus.deadLetters.list()).length === 2);

    const dashboard = await startDashboard({ bus });
    const page = await browser().context.newPage();
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    try {
      await page.goto(`${dashboard.url}/`);
      const form = page.locator('#dead-letter-section form.filter');
      await form.getByLabel('handler', { exact: true }).fill('dashboard.mail');
      await form.getByRole('button', { name: 'Purge matching' }).click();
      await page.locator('#status', { hasText: 'purged 1 dead letter(s)' }).waitFor();
      expect(asked).toEqual(['Delete every dead letter matching this filter without running them?']);
      expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual([`${event.id}.dashboard.ledger`]);
      await page.locator(`tr[data-letter="${event.id}.dashboard.mail"]`).waitFor({ state: 'detached' });
      expect(await page.locator('#dead-letters tbody tr').count()).toBe(1);
    } finally {
      await page.close();
      await dashboard.close();
    }
  });

  it("mounts bull-board under /queues with the bus's BullMQ queues, linked from the page", async () => {
    const config = fastConfig({ prefix: bed.prefix, name: 'board' });
    const { bus } = await bed.buses.start({ events: TEST_EVENTS, config, transport: testRedis() });
    const dashboard = await startDashboard({ bus, basePath: '/ops' });
    const page = await browser().context.newPage();
    try {
      await page.goto(dashboard.url);
      expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ops$/);
      expect(await page.locator('#queues td:first-child').allTextContents()).toEqual([
        'board-drain',
        'board-async',
        'board-retry',
      ]);
      await page.getByRole('link', { name: 'BullMQ queues (bull-board)' }).click();
      await page.waitForURL(/\/ops\/queues\//);
      for (const queue of ['board-drain', 'board-async', 'board-retry']) {
        await page.getByText(queue, { exact: true }).first().waitFor({ timeout: 15_000 });
      }
      expect(await page.title()).toContain('commitbus queues');
    } finally {
      await page.close();
      await dashboard.close();
    }
  });

  it('puts bull-board behind the same credentials as the page', async () => {
    const config = fastConfig({ prefix: bed.prefix, name: 'locked' });
    const bus = bed.buses.create({ events: TEST_EVENTS, config, transport: testRedis() });
    const dashboard = await startDashboard({ bus, basicAuth: { username: 'ops', password: 'secret' } });
    try {
      expect((await fetch(`${dashboard.url}/queues/`)).status).toBe(401);
      expect((await fetch(`${dashboard.url}/queues/api/queues`)).status).toBe(401);
      const authorization = `Basic ${Buffer.from('ops:secret').toString('base64')}`;
      const queues = await fetch(`${dashboard.url}/queues/api/queues`, { headers: { authorization } });
      expect(queues.status).toBe(200);
      const names = ((await queues.json()) as { queues: { name: string }[] }).queues.map((q) => q.name);
      expect(names.sort()).toEqual(['locked-async', 'locked-drain', 'locked-retry']);
    } finally {
      await dashboard.close();
    }
  });
});
