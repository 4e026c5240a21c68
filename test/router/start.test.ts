import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningRouter, startRouter } from '../../src/bus/start-router.js';
import type { CommitbusOptions } from '../../src/config/commitbus-options.js';
import { loadConfigFromEnv } from '../../src/config/load-config-from-env.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { ConfigError, RouterStoresUnsupportedError, type TransportAdapter } from '../../src/index.js';
import { RouterRedisRequiredError } from '../../src/router/errors/router-redis-required.error.js';
import { memoryTransport } from '../../src/transports/memory/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { Buses } from '../helpers/buses.js';
import { TEST_EVENTS } from '../helpers/events.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { CLUSTER_NODES, deleteKeys, ON_CLUSTER, openRedis, REDIS_URL, testPrefix } from '../helpers/redis.js';
import { RoutemasterClient } from '../helpers/routemaster-client.js';
import { thrownBy } from '../helpers/thrown-by.js';

// Where startRouter keeps its data: where its transport adapter keeps it
// (redisTransport() on the Redis its config names, the only adapter with
// router stores), and nowhere at all without one or on an adapter without
// them (the embedded SQLite): then it refuses to start.
const PREFIX = testPrefix('router-start');
const ROOT_KEY = 'router-start-root-key';
const agent = new Agent();
const redis = openRedis();
const logger = recordingLogger();
const buses = new Buses();
/** What the router warned and logged as errors, in order. */
const warnings = () => logger.messages('warn', 'error');
let running: RunningRouter[] = [];

afterEach(async () => {
  await buses.closeAll();
  await Promise.all(running.map((router) => router.close()));
  running = [];
  logger.clear();
});
afterAll(async () => {
  await agent.close();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

/** The test Redis as grouped options: the adapter takes it from there. */
function redisOptions(name: string): CommitbusOptions {
  const where = ON_CLUSTER ? { cluster: CLUSTER_NODES } : { url: REDIS_URL };
  return { name, redis: { ...where, prefix: PREFIX } };
}

async function start(
  config: Parameters<typeof startRouter>[0],
  transport: TransportAdapter = redisTransport(),
): Promise<RoutemasterClient> {
  const router = await startRouter(
    config,
    { port: 0, roles: ['api'], api: { rootKey: ROOT_KEY } },
    { logger, transport },
  );
  running.push(router);
  return new RoutemasterClient(router.url as string, ROOT_KEY, agent);
}

async function tokenNames(root: RoutemasterClient): Promise<string[]> {
  const answer = await root.get('/api_tokens');
  expect(answer.status).toBe(200);
  return (answer.json as { name: string }[]).map((t) => t.name);
}

describe('startRouter on redisTransport(), which takes its Redis from the config', () => {
  it.each([
    ['grouped options', (name: string) => redisOptions(name)],
    ['a configuration resolveOptions made', (name: string) => resolveOptions(redisOptions(name))],
  ])('keeps its data on that Redis, so a router started again finds it: %s', async (_, config) => {
    const first = await start(config('given-url'));
    expect((await first.addToken('shop')).status).toBe(201);
    await Promise.all(running.map((router) => router.close()));
    running = [];
    const second = await start(config('given-url'));
    expect(await tokenNames(second)).toContain('shop');
    expect(warnings()).toEqual([]);
  });
});

describe('startRouter roles', () => {
  it.each([
    ['none', []],
    ['one that is no role', ['api', 'bogus']],
    ['a string, not a list', 'api'],
  ])('refuses %s with a ConfigError listing the roles, before it opens anything', async (_, roles) => {
    const started = startRouter({}, { roles: roles as never }, { logger });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(/options\.roles lists one or more of api, delivery, upkeep/);
  });
});

describe('startRouter with no transport', () => {
  it.each([
    ['no config', undefined],
    ['empty options', {}],
    ['a prefix but no Redis', { redis: { prefix: PREFIX } }],
    ['a Redis named but no adapter', redisOptions('no-adapter')],
    ['a resolved default configuration', resolveOptions({})],
    ['loadConfigFromEnv of an environment with no Redis', loadConfigFromEnv({}, {}, logger)],
  ])('refuses to start with a coded error that says what to set: %s', async (_, config) => {
    const started = startRouter(config, { roles: ['upkeep'] }, { logger });
    await expect(started).rejects.toBeInstanceOf(RouterRedisRequiredError);
    const error = (await started.catch((e: unknown) => e)) as RouterRedisRequiredError;
    expect(error.code).toBe('COMMITBUS_ROUTER_REDIS_REQUIRED');
    expect(error.message).toContain('transport: redisTransport()');
    // No in-process fallback to point at: the router's stores exist on Redis only.
    expect(error.message).not.toMatch(/memoryTransport|sqliteTransport/);
  });
});

describe('the router on the embedded default (SQLite in this process)', () => {
  it('is refused on the stores of a bus given no transport, with the coded error saying the router needs Redis', () => {
    const bus = buses.create({ events: TEST_EVENTS, logger });
    expect(bus.runsOn).toMatchObject({ transport: 'sql-sqlite', inProcess: true });
    const error = thrownBy(() => bus.router);
    expect(error).toBeInstanceOf(RouterStoresUnsupportedError);
    expect(error).toMatchObject({ code: 'COMMITBUS_ROUTER_STORES_UNSUPPORTED', transport: 'sql-sqlite' });
    expect((error as Error).message).toMatch(
      /on Redis \(as Routemaster does\), and the transport "sql-sqlite"/,
    );
    expect((error as Error).message).toContain('run the router on redisTransport()');
  });

  it.each([
    ['sqliteTransport()', () => sqliteTransport()],
    ['memoryTransport(), its deprecated alias', () => memoryTransport()],
  ])('is refused by startRouter given %s, before it serves anything', async (_, transport) => {
    const refused = await start({ redis: { prefix: PREFIX } }, transport()).catch((error: unknown) => error);
    expect(running).toEqual([]);
    expect(refused).toBeInstanceOf(RouterStoresUnsupportedError);
    expect(refused).toMatchObject({ code: 'COMMITBUS_ROUTER_STORES_UNSUPPORTED', transport: 'sqlite' });
    expect((refused as Error).message).toMatch(/on Redis \(as Routemaster does\)/);
    expect(warnings()).toEqual([]);
  });
});
