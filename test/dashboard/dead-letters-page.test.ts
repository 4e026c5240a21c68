/**
 * The dead-letter browser in a real headless Chromium, on Redis with a real
 * bus and worker: the grouped view, a group's re-drive that shows the count
 * it will act on before a second, confirming click, and the letters re-driven
 * (the handler runs again, the group's letters leave the store, the others stay).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/index.js';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { type Browser, launchChromium } from '../helpers/chromium.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = redisTestBed('dletters-page');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the dead-letter browser in Chromium', () => {
  it("re-drives a group after showing its count, on a second click: the handler runs and the group's letters go", async () => {
    let failing = true;
    const ran: string[] = [];
    const flaky = defineHandler<RecordCreated>('dletters.flaky', (event) => {
      ran.push(event.recid);
      if (failing) throw new Error('billing is down\n    at charge (billing.js:7)');
    });
    const broken = defineHandler<RecordCreated>('dletters.broken', () => {
      throw new Error('always broken');
    });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        { handler: flaky, attempts: 1 },
        { handler: broken, attempts: 1 },
      ],
    };
    const config = fastConfig({ prefix: bed.prefix, name: 'grouped' });
    const { bus } = await bed.buses.start({ events: TEST_EVENTS, handlers, config, transport: testRedis() });
    for (const recid of ['r1', 'r2', 'r3']) await bus.publish(recordCreated(recid));
    await waitFor('six letters', async () => (await bus.deadLetters.list()).length === 6);
    ran.length = 0;

    const dashboard = await startDashboard({ bus });
    const page = await browser.context.newPage();
    try {
      await page.goto(`${dashboard.url}/dead-letters`);
      expect(await page.locator('#letters tbody tr').count()).toBe(6);
      await page.getByRole('link', { name: 'grouped by error' }).click();
      const group = page.locator('#groups tr', { hasText: 'dletters.flaky' });
      await group.waitFor();
      expect(await group.locator('td').nth(1).textContent()).toBe('billing is down');
      expect(await group.locator('td.n').textContent()).toBe('3');

      await group.getByRole('button', { name: 'Re-drive group…' }).click();
      const confirm = page.locator('#confirm');
      await confirm.waitFor({ state: 'visible' });
      expect(await page.locator('#confirm-text').textContent()).toBe(
        "Re-drive 3 dead letters of handler dletters.flaky with error 'billing is down'?",
      );
      // The first click only counted: nothing ran, nothing left the store.
      expect(ran).toEqual([]);
      expect((await bus.deadLetters.list()).length).toBe(6);

      failing = false;
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.locator('#status', { hasText: 're-drove 3 dead letter(s)' }).waitFor();
      await confirm.waitFor({ state: 'hidden' });
      await waitFor('the re-driven runs', () => ran.length === 3);
      await bus.whenIdle(10_000);
      expect(ran.sort()).toEqual(['r1', 'r2', 'r3']);
      const left = await bus.deadLetters.list();
      expect(left.map((l) => l.handler)).toEqual(['dletters.broken', 'dletters.broken', 'dletters.broken']);
      await group.waitFor({ state: 'detached' });
      expect(await page.locator('#groups tbody tr').count()).toBe(1);

      // The filter form (a GET the page's policy lets through) and a letter's page with its attempt and stack.
      await page.goto(`${dashboard.url}/dead-letters`);
      const form = page.locator('#letter-filter');
      await form.getByLabel('error contains').fill('always');
      await form.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/error=always/);
      // The form keeps what was chosen and nothing else: kind and reason stay "any".
      expect(page.url()).toMatch(/kind=&reason=&error=always$/);
      expect(await page.locator('#letters tbody tr').count()).toBe(3);
      await page.locator('#letters tbody tr').first().getByRole('link').click();
      const detail = page.locator('#letter-detail');
      await detail.waitFor();
      expect(await detail.locator('#attempts pre.stack').first().textContent()).toContain(
        'Error: always broken',
      );
      page.once('dialog', (dialog) => void dialog.accept());
      await detail.getByRole('button', { name: 'Purge' }).click();
      await page.locator('#status', { hasText: 'purged 1 dead letter(s)' }).waitFor();
      expect((await bus.deadLetters.list()).length).toBe(2);
    } finally {
      await page.close();
      await dashboard.close();
    }
  });
});
