/**
 * A Routemaster deployment's environment, read unchanged: its Redis (with
 * REDIS_ENV_KEY's indirection), its client tokens, its sizes, timeouts and
 * autodrop marks in its own units; our variables win where both are set,
 * and a bad value is a ConfigError naming the variable (never a token or
 * password).
 */
import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningRouter, startRouter } from '../../src/bus/start-router.js';
import { ConfigError } from '../../src/config/errors/config.error.js';
import { deliverySettings } from '../../src/router/delivery/delivery-settings.js';
import { RouterRedisRequiredError } from '../../src/router/errors/router-redis-required.error.js';
import { loadRouterConfigFromEnv } from '../../src/router/load-router-config-from-env.js';
import { loadRouterOptionsFromEnv } from '../../src/router/load-router-options-from-env.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { deleteKeys, openRedis, REDIS_URL, testPrefix } from '../helpers/redis.js';
import { RoutemasterClient } from '../helpers/routemaster-client.js';

const PREFIX = testPrefix('router-rm-env');
const SHOP = 'shop--0123456789abcdef0123456789abcdef';
const BILLING = 'billing--fedcba9876543210fedcba9876543210';
const redis = openRedis();
const agent = new Agent();
const logger = recordingLogger();
/** What the router warned and logged as errors, in order. */
const warnings = () => logger.messages('warn', 'error');
let running: RunningRouter | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  logger.clear();
});
afterAll(async () => {
  await agent.close();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

/** The settings of Routemaster's own `.env` the router has a knob for. */
const ROUTEMASTER_ENV = {
  ROUTEMASTER_ROOT_KEY: 'rm-root-key',
  ROUTEMASTER_REDIS_MAX_MEM: '100000000',
  ROUTEMASTER_REDIS_MIN_FREE: '10000000',
  ROUTEMASTER_SSL_VERIFY: 'YES',
  MAX_BACKOFF_MS: '60000',
  ROUTEMASTER_CONNECT_TIMEOUT: '2',
  ROUTEMASTER_TIMEOUT: '20',
  ROUTEMASTER_MAX_EVENT_DATA: '64',
  ROUTEMASTER_CLIENTS: `${SHOP}, ${BILLING}`,
};

describe("loadRouterOptionsFromEnv on Routemaster's variables", () => {
  it('reads each in its own units: msgpack bytes, seconds, autodrop marks from max and min free', () => {
    const options = loadRouterOptionsFromEnv(ROUTEMASTER_ENV);
    expect(options.api).toMatchObject({
      rootKey: 'rm-root-key',
      maxDataBytes: 64,
      dataLimitEncoding: 'msgpack',
    });
    expect(options.sender).toMatchObject({
      verifyTls: true,
      connectTimeoutMs: 2_000,
      requestTimeoutMs: 20_000,
    });
    expect(options.delivery?.backoff).toMatchObject({ baseMs: 60_000 });
    expect(options.upkeep).toMatchObject({ autodropHighBytes: 90_000_000, autodropLowBytes: 80_000_000 });
    expect(options.clients).toEqual([SHOP, BILLING]);
    // MIN_FREE left out: Routemaster's default, 10 MB.
    const { ROUTEMASTER_REDIS_MIN_FREE: _, ...noMinFree } = ROUTEMASTER_ENV;
    expect(loadRouterOptionsFromEnv(noMinFree).upkeep).toMatchObject({
      autodropHighBytes: 90_000_000,
      autodropLowBytes: 80_000_000,
    });
  });

  it('lets our own variables win, knob by knob', () => {
    const options = loadRouterOptionsFromEnv({
      ...ROUTEMASTER_ENV,
      ROUTER_MAX_DATA_BYTES: '4096',
      ROUTER_CONNECT_TIMEOUT_MS: '500',
      ROUTER_AUTODROP_HIGH_BYTES: '50000000',
      ROUTER_BACKOFF_BASE_MS: '1000',
      ROUTER_CLIENTS: 'ops--aaaa',
      ROUTER_ROOT_KEY: 'ours',
    });
    expect(options.api).toMatchObject({ rootKey: 'ours', maxDataBytes: 4096 });
    expect(options.api?.dataLimitEncoding).toBeUndefined();
    expect(options.sender).toMatchObject({ connectTimeoutMs: 500, requestTimeoutMs: 20_000 });
    expect(options.upkeep).toMatchObject({ autodropHighBytes: 50_000_000 });
    expect(options.upkeep?.autodropLowBytes).toBeUndefined();
    expect(options.delivery?.backoff).toMatchObject({ baseMs: 1_000 });
    expect(options.clients).toEqual(['ops--aaaa']);
  });

  it('lengthens the default lease with longer timeouts, so ROUTEMASTER_TIMEOUT=30 starts', () => {
    const { sender } = loadRouterOptionsFromEnv({
      ROUTEMASTER_CONNECT_TIMEOUT: '2',
      ROUTEMASTER_TIMEOUT: '30',
    });
    const timeouts = (sender?.connectTimeoutMs ?? 0) + (sender?.requestTimeoutMs ?? 0);
    expect(timeouts).toBe(32_000);
    expect(deliverySettings({}, timeouts).leaseMs).toBe(40_000);
    expect(deliverySettings({}, 22_000).leaseMs).toBe(30_000);
    expect(() => deliverySettings({ leaseMs: 30_000 }, timeouts)).toThrow('ROUTEMASTER_TIMEOUT');
  });

  it.each([
    [{ ROUTEMASTER_TIMEOUT: 'twenty' }, 'ROUTEMASTER_TIMEOUT must be a whole number'],
    [
      { ROUTEMASTER_CONNECT_TIMEOUT: '0' },
      'ROUTEMASTER_CONNECT_TIMEOUT must be a whole number of seconds >= 1',
    ],
    [{ ROUTEMASTER_MAX_EVENT_DATA: '64k' }, 'ROUTEMASTER_MAX_EVENT_DATA must be a whole number'],
    [{ ROUTEMASTER_REDIS_MAX_MEM: '100MB' }, 'ROUTEMASTER_REDIS_MAX_MEM must be a whole number'],
    [
      { ROUTEMASTER_REDIS_MAX_MEM: '15000000' },
      'ROUTEMASTER_REDIS_MAX_MEM (15000000) must exceed twice ROUTEMASTER_REDIS_MIN_FREE',
    ],
    [{ MAX_BACKOFF_MS: '-1' }, 'MAX_BACKOFF_MS must be a whole number'],
    [
      { ROUTEMASTER_CLIENTS: `${SHOP},Not-A-Token` },
      'ROUTEMASTER_CLIENTS: token 2 of 2 is not a client token',
    ],
    [{ ROUTEMASTER_CLIENTS: '--nameless' }, 'ROUTEMASTER_CLIENTS: token 1 of 1 is not a client token'],
    // Past the longest Node timer (about 24.8 days) every delivery would time out at once.
    [{ ROUTEMASTER_TIMEOUT: '2147484' }, 'ROUTEMASTER_TIMEOUT must be at most 2147483 seconds'],
  ])('refuses a bad value with a ConfigError naming the variable: %j', (env, message) => {
    expect(() => loadRouterOptionsFromEnv(env)).toThrow(ConfigError);
    expect(() => loadRouterOptionsFromEnv(env)).toThrow(message);
    const error = (() => {
      try {
        loadRouterOptionsFromEnv(env);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).not.toContain(SHOP);
    expect(error?.message).not.toContain('Not-A-Token');
  });
});

describe("loadRouterConfigFromEnv on Routemaster's Redis", () => {
  it('reads ROUTEMASTER_REDIS_URL, the variable REDIS_ENV_KEY names, and a value naming a variable', () => {
    const url = (env: Record<string, string>) => loadRouterConfigFromEnv(env, { logger }).redis.url;
    expect(url({ ROUTEMASTER_REDIS_URL: 'redis://rm-host:6390/2' })).toBe('redis://rm-host:6390/2');
    expect(url({ REDIS_ENV_KEY: 'REDISCLOUD_URL', REDISCLOUD_URL: 'redis://cloud:6391' })).toBe(
      'redis://cloud:6391',
    );
    // REDIS_ENV_KEY naming an unset variable: ROUTEMASTER_REDIS_URL, as Routemaster does.
    expect(url({ REDIS_ENV_KEY: 'UNSET_URL', ROUTEMASTER_REDIS_URL: 'redis://rm-host:6390' })).toBe(
      'redis://rm-host:6390',
    );
    expect(url({ ROUTEMASTER_REDIS_URL: 'OTHER_REDIS', OTHER_REDIS: 'redis://other:6392' })).toBe(
      'redis://other:6392',
    );
    expect(loadRouterConfigFromEnv({ ROUTEMASTER_REDIS_URL: 'redis://rm-host' }, { logger }).redis.url).toBe(
      'redis://rm-host',
    );
    expect(warnings()).toEqual([]);
  });

  it('uses ours when both name a Redis, and warns when they differ', () => {
    const config = loadRouterConfigFromEnv(
      { REDIS_URL: 'redis://ours:6379', ROUTEMASTER_REDIS_URL: 'redis://theirs:6379' },
      { logger },
    );
    expect(config.redis.url).toBe('redis://ours:6379');
    expect(warnings()).toEqual([
      "router: REDIS_URL and Routemaster's ROUTEMASTER_REDIS_URL name different Redis servers; the router uses REDIS_URL",
    ]);
  });

  it("starts on ours when Routemaster's Redis variable, which ours overrides, is wrong: a warning, not a refusal", () => {
    const config = loadRouterConfigFromEnv(
      { REDIS_URL: 'redis://ours:6379', ROUTEMASTER_REDIS_URL: 'redis://app:s3cret@theirs:6379?db=1' },
      { logger },
    );
    expect(config.redis.url).toBe('redis://ours:6379');
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(
      /^router: ROUTEMASTER_REDIS_URL .* is wrong: .*; the router uses REDIS_URL$/,
    );
    expect(warnings().join('\n')).not.toContain('s3cret');
  });

  it('refuses a URL it cannot read, naming the variable without the password, and no Redis at all', () => {
    const bad = () =>
      loadRouterConfigFromEnv(
        { REDIS_ENV_KEY: 'MY_REDIS', MY_REDIS: 'redis://app:s3cret@host:6379?db=1' },
        { logger },
      );
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/^MY_REDIS "redis:\/\/\*\*\*@host:6379\?\*\*\*" is wrong/);
    expect(() => loadRouterConfigFromEnv({}, { logger })).toThrow(RouterRedisRequiredError);
    expect(loadRouterConfigFromEnv({}, { dev: true, logger }).redis.url).toBe('redis://127.0.0.1:6379');
  });
});

describe('a router started from a Routemaster environment', () => {
  it("runs on ROUTEMASTER_REDIS_URL and takes ROUTEMASTER_CLIENTS' tokens at start, once", async () => {
    const env = {
      ...ROUTEMASTER_ENV,
      ROUTEMASTER_REDIS_URL: REDIS_URL,
      COMMITBUS_PREFIX: PREFIX,
      ROUTER_PORT: '0',
      ROUTER_ROLES: 'api',
    };
    const start = async () => {
      running = await startRouter(loadRouterConfigFromEnv(env, { logger }), loadRouterOptionsFromEnv(env), {
        logger,
        transport: redisTransport(),
      });
      return new RoutemasterClient(running.url as string, 'rm-root-key', agent);
    };
    const root = await start();
    const shop = root.as(SHOP);
    expect(
      (await shop.subscribe({ topics: ['orders'], callback: 'https://shop.test/hook', uuid: 'u' })).status,
    ).toBe(204);
    expect((await root.as('shop--unknown').get('/topics')).status).toBe(401);
    const names = async (client: RoutemasterClient) =>
      ((await client.get('/api_tokens')).json as { name: string }[]).map((t) => t.name).sort();
    expect(await names(root)).toEqual(['billing', 'shop']);
    // Started again: the tokens are there once each, and the subscription (in Redis) too.
    await running?.close();
    const again = await start();
    expect(await names(again)).toEqual(['billing', 'shop']);
    const subscriptions = (await again.as(BILLING).get('/subscriptions')).json as { subscriber: string }[];
    expect(subscriptions.map((s) => s.subscriber)).toEqual(['shop']);
  });

  it('starts when Redis does not answer yet, and says the listed tokens are imported once it does', async () => {
    running = await startRouter(
      { redis: { url: 'redis://127.0.0.1:1', prefix: PREFIX } },
      { roles: ['api'], port: 0, api: { rootKey: 'rm-root-key' }, clients: [SHOP] },
      { logger, transport: redisTransport() },
    );
    expect(warnings()).toContain(
      'router: the store does not answer yet; the listed client tokens are imported once it does',
    );
    expect(warnings().join('\n')).not.toContain(SHOP);
  });

  it('refuses sender timeouts past the longest Node timer, naming the option', async () => {
    const started = startRouter(
      {},
      { roles: ['delivery'], sender: { requestTimeoutMs: 3_000_000_000 } },
      { logger, transport: redisTransport() },
    );
    await expect(started).rejects.toThrow(ConfigError);
    await expect(started).rejects.toThrow('sender.requestTimeoutMs (ROUTER_REQUEST_TIMEOUT_MS)');
  });

  it('refuses to start when a listed token is the root key, without printing it', async () => {
    const started = startRouter(
      {},
      { roles: ['api'], port: 0, api: { rootKey: SHOP }, clients: [SHOP] },
      { logger, transport: redisTransport() },
    );
    await expect(started).rejects.toThrow(ConfigError);
    await expect(started).rejects.toThrow('is the root key');
    expect(String(await started.catch((e: unknown) => e))).not.toContain(SHOP);
  });
});
