/**
 * Operations reads while Redis cannot be reached: `bus.status()` and the
 * dead-letter reads fail with a TransportUnavailableError naming the server
 * and what to check (as publish does), not ioredis's raw error; the dashboard
 * answers at once, each part that lives in Redis reading `unavailable: ...`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DashboardSnapshot, type RunningDashboard, startDashboard } from '../src/dashboard/index.js';
import { createEventBus, type EventBus, TransportUnavailableError } from '../src/index.js';
import { TEST_EVENTS } from './helpers/events.js';

const open: EventBus[] = [];
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  for (const dashboard of dashboards.splice(0)) await dashboard.close();
  for (const bus of open.splice(0)) await bus.close();
});

function busOnClosedPort(): EventBus {
  // Port 1 on loopback: nothing listens there, so every connection is refused.
  const bus = createEventBus({
    events: TEST_EVENTS,
    config: {
      transport: 'bullmq',
      redis: { url: 'redis://:s3cret@127.0.0.1:1', prefix: 'i12-status-outage' },
    },
    logger: { info() {}, warn() {}, error() {} },
  });
  open.push(bus);
  return bus;
}

describe('with Redis unreachable', () => {
  it('bus.status() fails with TransportUnavailableError naming the server, never the password', async () => {
    const error = await busOnClosedPort()
      .status()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect((error as Error).message).toMatch(
      /^could not read the bus status on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: .*Is the server running, and is REDIS_URL \(redis\.url\) right\?$/,
    );
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('dead-letter reads fail the same way', async () => {
    const error = await busOnClosedPort()
      .deadLetters.list({ limit: 10 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect((error as Error).message).toMatch(
      /^could not list dead letters on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1/,
    );
  });
});

describe('the dashboard, with Redis unreachable', () => {
  // What each part of the page says: the action, the server without its password, and what to check.
  const unavailable = (action: string) => ({
    unavailable: expect.stringMatching(
      new RegExp(`^could not ${action} on Redis at redis://\\*\\*\\*@127\\.0\\.0\\.1:1: .*REDIS_URL`),
    ),
  });

  it('answers at once, page and API, with "unavailable: ..." where the data would be', async () => {
    const bus = busOnClosedPort();
    // bull-board mounted too: it is installed here, as in most deployments.
    const dashboard = await startDashboard({ bus });
    dashboards.push(dashboard);

    const overview = (await (await fetch(`${dashboard.url}/api/overview`)).json()) as DashboardSnapshot;
    expect(overview).toMatchObject({
      status: unavailable('read the bus status'),
      queues: unavailable('read the BullMQ queues'),
      deadLetters: unavailable('list dead letters'),
      halted: unavailable('list the halted order keys'),
      rules: unavailable('read the scheduling rules'),
    });
    const page = await fetch(`${dashboard.url}/`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toMatch(
      /unavailable: could not read the bus status on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: /,
    );
    expect(text).toMatch(/unavailable: could not list dead letters on Redis at /);
    expect(`${text}${JSON.stringify(overview)}`).not.toContain('s3cret');

    // The API's list of dead letters: an outage is a 503 (try later), not the operator's 400.
    const letters = await fetch(`${dashboard.url}/api/dead-letters`);
    expect(letters.status).toBe(503);
    expect(await letters.json()).toMatchObject({
      code: 'COMMITBUS_TRANSPORT_UNAVAILABLE',
      message: expect.stringMatching(
        /^could not list dead letters on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: /,
      ),
    });
  });
});
