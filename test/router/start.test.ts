import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningRouter, startRouter } from '../../src/bus/start-router.js';
import type { CommitbusOptions } from '../../src/config/commitbus-options.js';
import { loadConfigFromEnv } from '../../src/config/load-config-from-env.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { ConfigError, type TransportAdapter } from '../../src/index.js';
import { RouterRedisRequiredError } from '../../src/router/errors/router-redis-required.error.js';
import { memoryTransport } from '../../src/transports/memory/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { CLUSTER_NODES, deleteKeys, ON_CLUSTER, openRedis, REDIS_URL, testPrefix } from '../helpers/redis.js';
import { RoutemasterClient } from '../helpers/routemaster-client.js';

// Where startRouter keeps its data: where its transport adapter keeps it
// (redisTransport() on the Redis its config names), in memory only when given
// memoryTransport(), and nowhere at all without one: then it refuses to start.
const PREFIX = testPrefix('router-start');
const ROOT_KEY = 'router-start-root-key';
const agent = new Agent();
const redis = openRedis();
const logger = recordingLogger();
/** What the router warned and logged as errors, in order. */
const warnings = () => logger.messages('warn', 'error');
let running: RunningRouter[] = [];

afterEach(async () => {
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
    expect(error.message).toContain('memoryTransport()');
  });

  it('runs in memory when given memoryTransport(), and warns that nothing outlives it', async () => {
    const first = await start({ redis: { prefix: PREFIX } }, memoryTransport());
    expect((await first.addToken('shop')).status).toBe(201);
    expect(warnings().some((w) => w.includes("transport 'memory'") && w.includes('lost when it stops'))).toBe(
      true,
    );
    // A second router on the same options shares nothing with the first.
    const second = await start({ redis: { prefix: PREFIX } }, memoryTransport());
    expect(await tokenNames(second)).toEqual([]);
  });
});
