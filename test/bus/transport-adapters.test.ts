/**
 * Transports as values: `createEventBus({ transport: redisTransport({ url }) })`,
 * `memoryTransport()` (the deprecated name of `sqliteTransport()`, SQLite in
 * this process's memory), or an adapter of one's own, made here outside `src`
 * by wrapping the in-process one. The adapter's settings win over the bus's
 * options; what an adapter leaves out (router stores) the bus says clearly.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  defineHandler,
  type EventBus,
  type EventBusOptions,
  RouterStoresUnsupportedError,
} from '../../src/index.js';
import { memoryTransport } from '../../src/transports/memory/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { wrappedTransport } from '../conformance/adapters.js';
import { Buses } from '../helpers/buses.js';
import { type RecordEvent, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { REDIS_URL } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';

const { prefix: PREFIX, redis } = redisTestBed('transport-adapters');
const buses = new Buses();

/** A bus with one sync handler recording the recids it sees, its worker started. */
async function recordingBus(
  options: Omit<EventBusOptions, 'events'>,
): Promise<{ bus: EventBus; seen: string[] }> {
  const seen: string[] = [];
  const handler = defineHandler<RecordEvent>('adapters.seen', async (e) => void seen.push(e.recid));
  const { bus } = await buses.start({
    events: TEST_EVENTS,
    handlers: { RECORD: [[handler, true]] },
    ...options,
  });
  return { bus, seen };
}

const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('redisTransport()', () => {
  it('runs the bus on the Redis and under the prefix it names, over config.redis', async () => {
    const { bus, seen } = await recordingBus({
      transport: redisTransport({ url: REDIS_URL, prefix: PREFIX }),
      // Both lose to the adapter's own.
      config: {
        redis: { url: 'redis://127.0.0.1:1', prefix: 'not-this-one' },
        drains: { scheduleEveryMs: 0 },
      },
    });
    try {
      await bus.publish(recordCreated('a'));
      await bus.whenIdle(10_000);
      expect(seen).toEqual(['a']);
      expect(bus.runsOn).toMatchObject({ transport: 'redis', inProcess: false });
      expect(bus.runsOn.location).toMatch(new RegExp(`^Redis at redis://.*, prefix ${PREFIX}$`));
      expect(bus.config.redis.url).toBe(REDIS_URL);
      expect((await bus.status()).bus).toMatchObject({ prefix: PREFIX, transport: 'redis' });
      expect((await redis.keys(`{${PREFIX}:*`)).length).toBeGreaterThan(0);
      expect(await redis.keys('{not-this-one:*')).toEqual([]);
    } finally {
      await buses.closeAll();
    }
  });

  it.each<[string, unknown, RegExp]>([
    [
      'the URL alone',
      'redis://127.0.0.1:6379',
      /takes an object of options: redisTransport\(\{ url: "redis:\/\/\.\.\." \}\)/,
    ],
    [
      'a misspelt option',
      { urll: 'redis://127.0.0.1:6379' },
      /unknown redisTransport option "urll": the options are url, cluster, prefix/,
    ],
    ['null', null, /takes an object of options \(url, cluster, prefix\), got null/],
  ])("refuses %s with a ConfigError, not a bus on the config's Redis", (_, options, message) => {
    expect(() => redisTransport(options as never)).toThrow(ConfigError);
    expect(() => redisTransport(options as never)).toThrow(message);
  });

  it('refuses a wrong URL with a ConfigError that masks its password', () => {
    const error = thrown(() =>
      buses.create({
        events: TEST_EVENTS,
        transport: redisTransport({ url: 'redis://u:s3cret@127.0.0.1:6379/db?x=1' }),
      }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/redis\.url/);
    expect((error as Error).message).not.toContain('s3cret');
  });
});

describe('memoryTransport(), the deprecated name of sqliteTransport()', () => {
  it('runs the bus in this process on SQLite, whatever config.redis names; it holds no router', async () => {
    const { bus, seen } = await recordingBus({
      transport: memoryTransport(),
      config: { redis: { url: REDIS_URL } },
    });
    try {
      await bus.publish(recordCreated('m'));
      await bus.whenIdle(5_000);
      expect(seen).toEqual(['m']);
      expect(bus.runsOn).toMatchObject({ transport: 'sql-sqlite', inProcess: true });
      const error = thrown(() => bus.router);
      expect(error).toBeInstanceOf(RouterStoresUnsupportedError);
      expect(error).toMatchObject({ code: 'COMMITBUS_ROUTER_STORES_UNSUPPORTED', transport: 'sql-sqlite' });
      expect(bus.transport.bullmqQueues).toBeUndefined();
    } finally {
      await buses.closeAll();
    }
  });
});

describe('an adapter of its own, without router stores', () => {
  it('runs the bus, and bus.router throws RouterStoresUnsupportedError', async () => {
    const { bus, seen } = await recordingBus({ transport: wrappedTransport() });
    try {
      await bus.publish(recordCreated('w'));
      await bus.whenIdle(5_000);
      expect(seen).toEqual(['w']);
      expect(bus.runsOn).toMatchObject({ transport: 'wrapped', inProcess: false });
      const error = thrown(() => bus.router);
      expect(error).toBeInstanceOf(RouterStoresUnsupportedError);
      expect((error as RouterStoresUnsupportedError).code).toBe('COMMITBUS_ROUTER_STORES_UNSUPPORTED');
    } finally {
      await buses.closeAll();
    }
  });
});

describe('an adapter of its own that says it is in-process', () => {
  it('is in-process even when the transport it opens does not say so', async () => {
    const adapter = { ...wrappedTransport(), inProcess: true };
    const bus = buses.create({ events: TEST_EVENTS, transport: adapter });
    try {
      expect(bus.runsOn).toMatchObject({ transport: 'wrapped', inProcess: true });
    } finally {
      await buses.closeAll();
    }
  });
});

describe('a transport that is not an adapter value', () => {
  it.each<[string, unknown, RegExp]>([
    ['an old name', 'bullmq', /no longer takes a name \(got "bullmq"\)/],
    [
      'an adapter factory not called',
      redisTransport,
      /got the function redisTransport itself: call it \(redisTransport\(\)\)/,
    ],
    ['null', null, /must be a transport adapter, got null/],
    ['an object without open()', {}, /has no open\(\) method/],
  ])(
    '%s: createEventBus and startRouter throw a ConfigError saying what to pass',
    async (_, transport, message) => {
      const error = thrown(() => buses.create({ events: TEST_EVENTS, transport: transport as never }));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      const { startRouter } = await import('../../src/bus/router.js');
      const refused = await startRouter({}, { roles: ['upkeep'] }, { transport: transport as never }).catch(
        (e: unknown) => e,
      );
      // An object without routerStores is an adapter that cannot hold a router's data.
      expect(refused).toBeInstanceOf(
        typeof transport === 'object' && transport !== null ? RouterStoresUnsupportedError : ConfigError,
      );
    },
  );
});
