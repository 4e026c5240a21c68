/**
 * The dashboard's workers section over real HTTP on 127.0.0.1, on the
 * embedded SQLite and on Redis: with no worker it says none is alive; a
 * running worker shows as a row, alive, with its host and pid; a worker
 * whose beats stopped shows as gone; what a beat carries is shown as text.
 */
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix, buses } = redisTestBed('dash-workers');
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.close()));
});

const page = async (dashboard: RunningDashboard) => (await fetch(`${dashboard.url}/`)).text();

describe.each(TRANSPORT_NAMES)('the workers section on %s', (transport) => {
  it('says no worker is alive, then shows a running one alive and a silent one gone', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      config: fastConfig({
        prefix,
        name: `dashw-${transport}`,
        workers: { beatEveryMs: 50, goneAfterMs: 300 },
      }),
      transport: testTransport(transport),
    });
    const dashboard = await startDashboard({ bus });
    dashboards.push(dashboard);
    expect(await page(dashboard)).toContain("No worker alive: nothing handles the bus's work.</p>");
    expect(await page(dashboard)).not.toContain('data-attention="no-worker"');
    // Work waits with no worker: flagged at the top of the page, in words.
    await bus.publish(recordCreated('w1'));
    const waiting = await page(dashboard);
    expect(waiting).toContain(
      '<li class="attention" data-attention="no-worker"><span class="label">no worker</span>No worker alive while 1 event(s) and job(s) wait.</li>',
    );
    expect(waiting).toContain(
      `<span class="label">no worker</span>No worker alive: nothing handles the bus's work. 1 event(s) and job(s) wait.</p>`,
    );

    const worker = await bus.startWorker({ handleSignals: false });
    await bus.transport.workers.beat({
      id: 'silent-0000',
      host: '<b>elsewhere</b>',
      pid: 1,
      version: '0.0.1',
      transport: bus.transport.name,
      concurrency: 1,
      busy: 0,
      startedAt: new Date(),
    });
    await waitFor('the silent worker gone and this one alive', async () => {
      const text = await page(dashboard);
      return text.includes('1 alive, 1 gone.');
    });
    const text = await page(dashboard);
    expect(text).toMatch(
      new RegExp(`<td class="ok-text">alive</td><td>${hostname()}</td><td class="n">${process.pid}</td>`),
    );
    expect(text).toContain('<td class="error">gone</td><td>&lt;b&gt;elsewhere&lt;/b&gt;</td>');
    expect(text).not.toContain('<b>elsewhere</b>');
    await worker.close();
  });
});
