/**
 * Workers you can see: a running worker registers and beats (host, pid,
 * commitbus version, transport, concurrency, busy count, started, last
 * beat), `bus.status().workers` lists it alive, from another bus of the same
 * name too; a worker whose beats stop is shown as gone after
 * `workers.goneAfterMs`; a worker that closes leaves. On the embedded
 * SQLite, Redis and PostgreSQL (the port itself:
 * test/conformance/worker-registry.conformance.test.ts). And with real
 * processes on Redis: a worker killed with SIGKILL is shown as gone, one
 * stopped with SIGTERM leaves.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type CommitbusOptions,
  defineHandler,
  type EventHandlersConfig,
  type TransportAdapter,
} from '../../src/index.js';
import { sqliteTransport, sqlTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { deleteKeys, ON_CLUSTER, openRedis, REDIS_URL, testPrefix } from '../helpers/redis.js';
import { sqlTestDatabases } from '../helpers/sql.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const PREFIX = testPrefix('worker-beats');
const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const databases = ON_CLUSTER ? undefined : sqlTestDatabases();

/** An adapter, and whether two buses of one name on it share their data (two processes). */
const SETUPS: readonly { name: string; shared: boolean; adapter: () => TransportAdapter }[] = [
  { name: 'sqlite in memory', shared: false, adapter: () => sqliteTransport({ pollMs: 20 }) },
  { name: 'redis', shared: true, adapter: () => testRedis() },
  ...(databases === undefined
    ? []
    : [
        {
          name: 'sql postgres',
          shared: true,
          adapter: () => sqlTransport({ dataSource: databases.postgres, pollMs: 50 }),
        },
      ]),
];

const buses = new Buses();
afterEach(() => buses.closeAll());
afterAll(async () => {
  const redis = openRedis();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

let held: () => void = () => {};
const handlers: EventHandlersConfig = {
  'RECORD.CREATE': [defineHandler('holdsOn', () => new Promise<void>((resolve) => (held = resolve)))],
};

let n = 0;
function config(name: string): CommitbusOptions {
  return fastConfig({
    prefix: PREFIX,
    name,
    handlers: { concurrency: 7 },
    workers: { beatEveryMs: 40, goneAfterMs: 400 },
  });
}

describe.each(SETUPS)('workers on $name', (setup) => {
  it('lists a running worker alive with what it is, and its busy count as it works', async () => {
    const name = `beats${++n}`;
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      config: config(name),
      transport: setup.adapter(),
    });
    await waitFor('the worker registered', async () => (await bus.status()).workers.alive === 1);
    const { workers } = await bus.status();
    expect(workers.goneAfterMs).toBe(400);
    expect(workers.list).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        host: hostname(),
        pid: process.pid,
        version: VERSION,
        transport: bus.transport.name,
        concurrency: 7,
        busy: 0,
        startedAt: expect.any(String),
        lastBeatAt: expect.any(String),
        alive: true,
      },
    ]);
    const [first] = workers.list;
    await bus.publish(recordCreated('1'));
    await waitFor('a beat showing the handler run under way', async () => {
      const [w] = (await bus.status()).workers.list;
      return w?.busy === 1 && w.lastBeatAt > (first?.lastBeatAt ?? '');
    });
    held();
    await waitFor(
      'a beat showing it idle again',
      async () => (await bus.status()).workers.list[0]?.busy === 0,
    );
    if (setup.shared) {
      // Another process of the bus sees it.
      const other = buses.create({ events: TEST_EVENTS, config: config(name), transport: setup.adapter() });
      expect((await other.status()).workers.list.map((w) => w.id)).toEqual([first?.id]);
    }
  });

  it('shows a worker whose beats stopped as gone after goneAfterMs, and forgets one that closed', async () => {
    const { bus, worker } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      config: config(`beats${++n}`),
      transport: setup.adapter(),
    });
    await waitFor('the worker registered', async () => (await bus.status()).workers.alive === 1);
    // A worker of another process that beat once, then died.
    await bus.transport.workers.beat({
      id: 'dead-worker',
      host: 'elsewhere',
      pid: 1,
      version: '0.0.1',
      transport: bus.transport.name,
      concurrency: 1,
      busy: 1,
      startedAt: new Date(),
    });
    expect((await bus.status()).workers.alive).toBe(2);
    await waitFor('the dead worker shown as gone', async () => {
      const { workers } = await bus.status();
      return workers.list.find((w) => w.id === 'dead-worker')?.alive === false;
    });
    const { workers } = await bus.status();
    expect(workers.alive).toBe(1);
    expect(workers.list.map((w) => [w.host, w.alive])).toEqual([
      [hostname(), true],
      ['elsewhere', false],
    ]);
    await worker.close();
    expect((await bus.status()).workers.list.map((w) => w.id)).toEqual(['dead-worker']);
  });
});

describe('worker processes on redis', () => {
  const children = childWorkers();

  it('shows a worker killed with SIGKILL as gone, and forgets one stopped with SIGTERM', async () => {
    const name = `beats${++n}`;
    const env = {
      PREFIX,
      BUS_NAME: name,
      COUNTS_KEY: `${PREFIX}:counts`,
      PIDS_KEY: `${PREFIX}:pids`,
      REDIS_URL,
      BEAT_EVERY_MS: '50',
    };
    const killed = spawnWorker(env);
    const stopped = spawnWorker(env);
    children.push(killed, stopped);
    await Promise.all([killed.ready, stopped.ready]);
    const reader = buses.create({ events: TEST_EVENTS, config: config(name), transport: testRedis() });
    const pidsAlive = async () =>
      (await reader.status()).workers.list
        .filter((w) => w.alive)
        .map((w) => w.pid)
        .sort();
    await waitFor('both processes alive', async () => (await pidsAlive()).length === 2);
    expect(await pidsAlive()).toEqual([killed.pid, stopped.pid].sort());

    killed.process.kill('SIGKILL');
    await killed.exited;
    await waitFor('the killed process shown as gone', async () => {
      const { workers } = await reader.status();
      return workers.list.find((w) => w.pid === killed.pid)?.alive === false;
    });
    expect((await reader.status()).workers.alive).toBe(1);

    stopped.process.kill('SIGTERM');
    expect((await stopped.exited).code).toBe(0);
    const { workers } = await reader.status();
    expect(workers.list.map((w) => [w.pid, w.alive])).toEqual([[killed.pid, false]]);
    expect(workers.alive).toBe(0);
  });
});
