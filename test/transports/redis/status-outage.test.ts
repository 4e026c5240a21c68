/**
 * Operations reads while Redis, or a Redis Cluster, cannot be reached:
 * publish, `bus.status()`, the dead-letter reads and `whenIdle()` fail soon
 * with a TransportUnavailableError naming the server and what to check, not
 * ioredis's raw error; the dashboard answers at once, each part that lives in
 * Redis reading `unavailable: ...`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DashboardSnapshot,
  type RunningDashboard,
  startDashboard,
} from '../../../src/dashboard/index.js';
import { createEventBus, type EventBus, type Logger, TransportUnavailableError } from '../../../src/index.js';
import { redisTransport } from '../../../src/transports/redis/index.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { waitFor } from '../../helpers/wait-for.js';

const open: EventBus[] = [];
const dashboards: RunningDashboard[] = [];
afterEach(async () => {
  for (const dashboard of dashboards.splice(0)) await dashboard.close();
  for (const bus of open.splice(0)) await bus.close();
});

const QUIET: Logger = { info() {}, warn() {}, error() {} };

function busOnClosedPort(): EventBus {
  // Port 1 on loopback: nothing listens there, so every connection is refused.
  const bus = createEventBus({
    events: TEST_EVENTS,
    config: { redis: { url: 'redis://:s3cret@127.0.0.1:1', prefix: 'i12-status-outage' } },
    transport: redisTransport(),
    logger: QUIET,
  });
  open.push(bus);
  return bus;
}

/** A bus on a Redis Cluster whose nodes are closed ports (1 and 2 on loopback). */
function busOnClosedCluster(logger: Logger = QUIET): EventBus {
  const bus = createEventBus({
    events: TEST_EVENTS,
    config: {
      redis: { cluster: ['redis://:s3cret@127.0.0.1:1', '127.0.0.1:2'], prefix: 'i17-cluster-outage' },
    },
    transport: redisTransport(),
    logger,
  });
  open.push(bus);
  return bus;
}

/** What `promise` rejected with; it must reject. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('it resolved');
    },
    (error: Error) => error,
  );
}

/** Each of the bus's calls fails with a TransportUnavailableError naming the cluster (no password). */
async function expectClusterUnavailable(bus: EventBus): Promise<void> {
  const failures = await Promise.all([
    rejection(bus.publish(recordCreated('during'))),
    rejection(bus.status()),
    rejection(bus.deadLetters.list({ limit: 10 })),
    // Far above how long the cluster takes to fail: a rejection here is the outage, not this timeout.
    rejection(bus.whenIdle(25_000)),
  ]);
  const actions = [
    'publish 1 event\\(s\\)',
    'read the bus status',
    'list dead letters',
    'wait for the bus to be idle',
  ];
  failures.forEach((error, i) => {
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect(error.message).toMatch(
      new RegExp(
        `^could not ${actions[i]} on Redis Cluster at 127\\.0\\.0\\.1:1, 127\\.0\\.0\\.1:2: no node of the cluster could be reached .*Are its nodes running, and is REDIS_CLUSTER_NODES \\(redis\\.cluster\\) right\\?$`,
      ),
    );
    expect(error.message).not.toContain('s3cret');
  });
}

describe('with Redis unreachable', () => {
  it('bus.status() fails with TransportUnavailableError naming the server, never the password', async () => {
    const error = await busOnClosedPort()
      .status()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect((error as Error).message).toMatch(
      /^could not read the bus status on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: connection refused \(ECONNREFUSED\): nothing listens there\. Is the server running, and is REDIS_URL \(redis\.url\) right\?$/,
    );
    // The cause and the fix lead, not ioredis's "Reached the max retries per request limit".
    expect((error as Error).message).not.toMatch(/max retries|maxRetriesPerRequest/);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it("whenIdle() fails the same way, not with ioredis's own error", async () => {
    const error = await rejection(busOnClosedPort().whenIdle(25_000));
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect(error.message).toMatch(
      /^could not wait for the bus to be idle on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: /,
    );
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

describe('with a Redis Cluster unreachable', () => {
  it('publish, status(), dead-letter reads and whenIdle() called at once fail soon with TransportUnavailableError', async () => {
    await expectClusterUnavailable(busOnClosedCluster());
  });

  it('so do they once the first attempt to reach the cluster has failed', async () => {
    const warned: string[] = [];
    const bus = busOnClosedCluster({ ...QUIET, warn: (_fields, message) => void warned.push(message) });
    await waitFor('the first failed attempt', () => warned.includes('redis connection error; reconnecting'));
    await expectClusterUnavailable(bus);
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
