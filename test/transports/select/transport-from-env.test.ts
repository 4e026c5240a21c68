/**
 * transportFromEnv: the adapter the environment names, and what a bus does
 * when its options name a Redis but it was given no adapter.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  createEventBus,
  DEFAULT_CONFIG,
  loadConfigFromEnv,
  silentLogger,
} from '../../../src/index.js';
import { redisTransport } from '../../../src/transports/redis/index.js';
import { transportFromEnv } from '../../../src/transports/select/index.js';
import { TEST_EVENTS } from '../../helpers/events.js';

/** The Redis settings an adapter value carries, `undefined` for one without. */
const redisOf = (adapter: ReturnType<typeof transportFromEnv>) =>
  'settings' in adapter ? adapter.settings.redis : undefined;

describe('transportFromEnv', () => {
  it('picks the Redis adapter on REDIS_URL, its URL a fallback and the prefix left to the options', () => {
    const redis = transportFromEnv({ env: { REDIS_URL: 'redis://cache:6380/2', COMMITBUS_PREFIX: 'shop' } });
    expect(redis.name).toBe('redis');
    expect(redisOf(redis)).toEqual({ url: 'redis://cache:6380/2' });
    expect('settings' in redis && redis.settings.fallback).toBe(true);
    expect(redisOf(transportFromEnv({ env: { COMMITBUS_REDIS_URL: 'redis://cache' } }))).toEqual({
      url: 'redis://cache',
    });
  });

  it("lets the options' own Redis and prefix win, as loadConfigFromEnv's overrides do", async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:1', COMMITBUS_PREFIX: 'from-env' };
    const overrides = { redis: { url: 'redis://127.0.0.1:6379', prefix: 'from-code' } };
    const bus = createEventBus({
      events: TEST_EVENTS,
      logger: silentLogger,
      config: loadConfigFromEnv(env, overrides, silentLogger),
      transport: transportFromEnv({ env }),
    });
    try {
      expect(bus.config.redis).toMatchObject({ url: 'redis://127.0.0.1:6379', prefix: 'from-code' });
    } finally {
      await bus.close();
    }
    // With the options naming none, the variables' Redis is the one.
    const fromEnv = createEventBus({
      events: TEST_EVENTS,
      logger: silentLogger,
      transport: transportFromEnv({ env }),
    });
    try {
      expect(fromEnv.config.redis.url).toBe('redis://127.0.0.1:1');
    } finally {
      await fromEnv.close();
    }
  });

  it('picks it on a cluster too', () => {
    const redis = transportFromEnv({ env: { REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000' } });
    expect(redisOf(redis)).toEqual({ cluster: ['10.0.0.1:7000', '10.0.0.2:7000'] });
  });

  it('takes COMMITBUS_TRANSPORT first: memory (SQLite in this process) over a Redis URL, bullmq as the old name of redis', () => {
    expect(
      transportFromEnv({ env: { REDIS_URL: 'redis://cache', COMMITBUS_TRANSPORT: 'memory' } }),
    ).toMatchObject({ name: 'sqlite', inProcess: true });
    expect(transportFromEnv({ env: { COMMITBUS_TRANSPORT: 'bullmq' } }).name).toBe('redis');
    expect(transportFromEnv({ env: { COMMITBUS_TRANSPORT: 'redis' } }).name).toBe('redis');
  });

  it('is the in-process adapter with nothing set, empty variables counting as unset', () => {
    const embedded = transportFromEnv({ env: { REDIS_URL: '  ', COMMITBUS_TRANSPORT: '' } });
    expect(embedded).toMatchObject({ name: 'sqlite', inProcess: true });
  });

  it('refuses another transport name, and a Redis URL it cannot read, with a ConfigError showing no password', () => {
    expect(() => transportFromEnv({ env: { COMMITBUS_TRANSPORT: 'kafka' } })).toThrow(
      new ConfigError('COMMITBUS_TRANSPORT must be one of redis, bullmq, sql, sqlite, memory, got "kafka"'),
    );
    const thrown = (() => {
      try {
        transportFromEnv({ env: { REDIS_URL: 'REDIS://:s3cret@cache:6379' } });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(String((thrown as Error).message)).not.toContain('s3cret');
  });
});

describe('a bus given no adapter', () => {
  it('refuses options that name a Redis, instead of keeping in memory what was meant for it', async () => {
    // A Redis bus's own config, given back as it is, names its Redis too.
    const onRedis = createEventBus({
      events: TEST_EVENTS,
      logger: silentLogger,
      config: { redis: { url: 'redis://127.0.0.1:1' } },
      transport: redisTransport(),
    });
    await onRedis.close();
    for (const config of [
      { redis: { url: 'redis://cache:6380' } },
      loadConfigFromEnv({ REDIS_URL: 'redis://cache' }),
      loadConfigFromEnv({ COMMITBUS_TRANSPORT: 'bullmq' }),
      onRedis.config,
      { ...onRedis.config },
    ]) {
      expect(() => createEventBus({ events: TEST_EVENTS, config, logger: silentLogger })).toThrow(
        /name a Redis .* but no transport adapter was given.*redisTransport\(\)/,
      );
    }
  });

  it('refuses options loaded with COMMITBUS_TRANSPORT=sql or sqlite, instead of running in memory', () => {
    for (const asked of ['sql', 'sqlite']) {
      const config = loadConfigFromEnv({ COMMITBUS_TRANSPORT: asked });
      for (const given of [config, { ...config, name: 'copy' }]) {
        expect(() => createEventBus({ events: TEST_EVENTS, config: given, logger: silentLogger })).toThrow(
          new RegExp(`COMMITBUS_TRANSPORT=${asked} but no transport adapter was given.*transportFromEnv`),
        );
      }
    }
  });

  it('runs in this process on options loaded with COMMITBUS_TRANSPORT=memory, which asked for that', async () => {
    const bus = createEventBus({
      events: TEST_EVENTS,
      config: loadConfigFromEnv({ COMMITBUS_TRANSPORT: 'memory' }),
      logger: silentLogger,
    });
    expect(bus.runsOn).toMatchObject({ transport: 'sql-sqlite', inProcess: true });
    await bus.close();
  });

  it('runs in this process when they name none, a spread copy of a resolved configuration included', async () => {
    const first = createEventBus({ events: TEST_EVENTS, logger: silentLogger });
    const copies = [{ ...first.config }, DEFAULT_CONFIG, { ...DEFAULT_CONFIG }, { ...loadConfigFromEnv({}) }];
    const others = copies.map((config) =>
      createEventBus({ events: TEST_EVENTS, logger: silentLogger, config }),
    );
    try {
      expect(first.transport).toMatchObject({ name: 'sql-sqlite', inProcess: true });
      expect(others.map((bus) => bus.runsOn)).toEqual(
        Array.from({ length: 4 }, () => ({
          transport: 'sql-sqlite',
          inProcess: true,
          location: 'SQLite :memory:',
        })),
      );
    } finally {
      await Promise.all([first, ...others].map((bus) => bus.close()));
    }
    // The default URL given by name, flat or grouped, is a Redis named.
    for (const config of [
      { redisUrl: DEFAULT_CONFIG.redis.url },
      { redis: { url: DEFAULT_CONFIG.redis.url } },
    ]) {
      expect(() => createEventBus({ events: TEST_EVENTS, config, logger: silentLogger })).toThrow(
        /name a Redis .* but no transport adapter was given/,
      );
    }
  });

  it('refuses the string transport option with a ConfigError naming the adapters', () => {
    expect(() =>
      createEventBus({ events: TEST_EVENTS, logger: silentLogger, config: { transport: 'bullmq' } as never }),
    ).toThrow(
      /the transport option is gone: .*redisTransport.*sqlTransport.*sqliteTransport.*transportFromEnv/,
    );
  });
});

describe('loadConfigFromEnv and COMMITBUS_TRANSPORT', () => {
  it('refuses a value transportFromEnv would refuse, so a bus given no adapter does not run past a typo in memory', () => {
    for (const value of ['kafka', 'Redis', 'reddis']) {
      expect(() => loadConfigFromEnv({ COMMITBUS_TRANSPORT: value }, {}, silentLogger)).toThrow(
        new ConfigError(
          `COMMITBUS_TRANSPORT must be one of redis, bullmq, sql, sqlite, memory, got ${JSON.stringify(value)}`,
        ),
      );
    }
    for (const value of ['', ' ', 'memory', 'sqlite', ' redis ', 'bullmq']) {
      expect(() => loadConfigFromEnv({ COMMITBUS_TRANSPORT: value }, {}, silentLogger)).not.toThrow();
    }
  });
});
