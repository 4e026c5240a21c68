/**
 * A Redis password never shows: not in an error's message, its `cause`
 * chain, what `util.inspect` or `JSON.stringify` print of it, nor in a log
 * line. Against a real Redis of its own started with `--requirepass`, reached
 * with a wrong password through the real bus, router and config loader.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter } from '../../src/bus/router.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import {
  ConfigError,
  createEventBus,
  type EventBus,
  type Logger,
  loadConfigFromEnv,
  TransportUnavailableError,
} from '../../src/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { freePort } from '../helpers/free-port.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { waitFor } from '../helpers/wait-for.js';

/** The server's password: holds characters a URL must percent-encode. */
const RIGHT = 'i12config-Right/pw%sec@ret';
/** What the tests connect with. */
const WRONG = 'i12config-Wr0ng/pw%sec@ret';
const PREFIX = 'i12config-secrets';

/** Everything a caught error or a log line could show. */
function everythingShown(error: unknown, lines: readonly string[] = []): string {
  let json = '';
  try {
    json = JSON.stringify(error);
  } catch {
    json = '';
  }
  const message = error instanceof Error ? error.message : String(error);
  return [String(error), message, inspect(error, { depth: Number.POSITIVE_INFINITY }), json, ...lines].join(
    '\n',
  );
}

/** Neither password, as written or percent-encoded, nor a telling part of one. */
function expectNoSecret(shown: string): void {
  for (const secret of [RIGHT, WRONG]) {
    expect(shown).not.toContain(secret);
    expect(shown).not.toContain(encodeURIComponent(secret));
  }
  expect(shown).not.toContain('Wr0ng');
  expect(shown).not.toContain('Right/pw');
}

let server: ChildProcess;
let port: number;
const wrongUrl = () => `redis://:${encodeURIComponent(WRONG)}@127.0.0.1:${port}`;

beforeAll(async () => {
  port = await freePort();
  server = spawn(
    'redis-server',
    ['--port', String(port), '--requirepass', RIGHT, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis({ port, password: RIGHT, lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  await waitFor('the password-protected Redis to answer', async () => (await probe.ping()) === 'PONG');
  probe.disconnect();
});

afterAll(async () => {
  if (server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
});

/** What `promise` rejected with; it must reject. */
function rejected(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.unreachable('it should fail'),
    (e: unknown) => e as Error,
  );
}

const open: EventBus[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((bus) => bus.close().catch(() => undefined)));
});

function busWithWrongPassword(logger: Logger, config: object = { redis: { url: wrongUrl() } }): EventBus {
  const bus = createEventBus({
    events: TEST_EVENTS,
    logger,
    transport: redisTransport(),
    config: {
      name: 'secrets',
      ...config,
      redis: { prefix: PREFIX, ...('redis' in config ? (config.redis as object) : {}) },
      drains: { scheduleEveryMs: 0 },
    },
  });
  open.push(bus);
  return bus;
}

describe('a wrong Redis password', () => {
  it('is in no part of the TransportUnavailableError a publish throws, nor in the log', async () => {
    const logger = recordingLogger();
    const bus = busWithWrongPassword(logger);
    const error = await bus.publish(recordCreated('secret-1')).then(
      () => expect.unreachable('the publish should fail'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect((error as Error).message).toContain('WRONGPASS');
    // The cause keeps what helps: class, code and message; not the AUTH command's arguments.
    const cause = (error as Error).cause as Error & { command?: unknown };
    expect(cause.name).toBe('ReplyError');
    expect(cause.message).toContain('WRONGPASS');
    expect(cause.command).toBeUndefined();
    await waitFor('the connection error to be logged', () => logger.lines.length > 0);
    expectNoSecret(everythingShown(error, logger.json()));
  });

  it('is named as the cause, with the fix, once the connection has given up, not "max retries"', async () => {
    const bus = busWithWrongPassword(recordingLogger());
    await bus.publish(recordCreated('secret-2')).catch(() => undefined);
    const error = await rejected(bus.status());
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect(error.message).toMatch(
      /^could not read the bus status on Redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+: Redis refused the user name or password \(WRONGPASS\)\. Check the user name and password in REDIS_URL \(redis\.url\)\.$/,
    );
    expectNoSecret(everythingShown(error));
  });

  it('written with a bare "@" in the URL: the message says to percent-encode it', async () => {
    const bare = `redis://:i17-Wr0ng@pw@127.0.0.1:${port}`;
    const bus = busWithWrongPassword(recordingLogger(), { redis: { url: bare } });
    const error = await rejected(bus.status());
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect(error.message).toMatch(
      /\(WRONGPASS\)\. Check the user name and password in REDIS_URL \(redis\.url\): .*percent-encode it/,
    );
    expect(everythingShown(error)).not.toContain('i17-Wr0ng');
  });

  it('is in nothing the operations API throws (dead letters, rules) or a worker logs', async () => {
    const logger = recordingLogger();
    const bus = busWithWrongPassword(logger);
    const thrown: unknown[] = [];
    await bus.deadLetters.list().catch((e: unknown) => thrown.push(e));
    await bus.rules.list().catch((e: unknown) => thrown.push(e));
    const worker = await bus.startWorker({ handleSignals: false }).catch((e: unknown) => {
      thrown.push(e);
      return undefined;
    });
    await worker?.close();
    expect(thrown.length).toBeGreaterThan(0);
    for (const error of thrown) expectNoSecret(everythingShown(error));
    expectNoSecret(logger.json().join('\n'));
  });

  it('given as a Redis Cluster node (REDIS_CLUSTER_NODES) is in nothing the bus logs', async () => {
    const logger = recordingLogger();
    const options = loadConfigFromEnv({
      REDIS_CLUSTER_NODES: `redis://default:${encodeURIComponent(WRONG)}@127.0.0.1:${port}`,
      COMMITBUS_REDIS_PREFIX: PREFIX,
    });
    const bus = createEventBus({
      events: TEST_EVENTS,
      logger,
      config: { ...options, name: 'secrets-cluster' },
      transport: redisTransport(),
    });
    // A cluster client keeps retrying its node and this publish does not settle (not even on close):
    // what shows is the log, and whatever the publish rejects with, if it ever does.
    let settled: unknown;
    void bus.publish(recordCreated('secret-2')).catch((e: unknown) => {
      settled = e;
    });
    await waitFor('the connection error to be logged', () => logger.lines.length > 0);
    expect(logger.json().join('\n')).toContain('Redis Cluster at 127.0.0.1');
    expectNoSecret(everythingShown(settled, logger.json()));
  });

  it('is in nothing the router throws when Redis refuses its credentials', async () => {
    const logger = recordingLogger();
    const error = await startRouter(
      { redis: { url: wrongUrl(), prefix: PREFIX } },
      { roles: ['upkeep'] },
      { logger, transport: redisTransport() },
    ).then(
      async (router) => {
        await router.close();
        return expect.unreachable('the router should refuse to start');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expectNoSecret(everythingShown(error, logger.json()));
  });
});

describe('a Redis URL written wrong', () => {
  it.each([
    ['a scheme without its colon', `redis//app:${WRONG}@127.0.0.1:6379`],
    ['a scheme with one slash', `rediss:/app:${WRONG}@127.0.0.1:6379`],
    ['a "/" left unencoded in the password', `redis://app:${WRONG}@127.0.0.1:6379`],
    ['a scheme in capitals', `REDIS://:${WRONG}@127.0.0.1:6379`],
    [
      'the password in the query, which ioredis would read',
      `redis://127.0.0.1:6379/0?password=${encodeURIComponent(WRONG)}`,
    ],
  ])('(%s) is refused with a ConfigError that shows no password', (_case, url) => {
    for (const attempt of [
      () => loadConfigFromEnv({ REDIS_URL: url }),
      () => createEventBus({ events: TEST_EVENTS, config: { redis: { url } }, transport: redisTransport() }),
      () => createEventBus({ events: TEST_EVENTS, transport: redisTransport({ url }) }),
      // The router opens Redis from the URL on a memory bus's config too.
      () => createEventBus({ events: TEST_EVENTS, config: { redis: { url } } }),
    ]) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).cause).toBeUndefined();
      expect((thrown as Error).message).toContain('redis.url');
      expectNoSecret(everythingShown(thrown));
    }
  });
});

it.each([
  ['a bare "#" in the password', 'redis://:pa#ss@127.0.0.1:6379'],
  ['a bare "?" in the password', 'redis://:pa?ss@127.0.0.1:6379'],
  ['a bare "@" before a bare "#" (the rest reads as a fragment)', 'redis://:p@ss#word@127.0.0.1:6379'],
])('(%s) is refused with a message saying to percent-encode "#" and "?"', (_case, url) => {
  let thrown: unknown;
  try {
    loadConfigFromEnv({ REDIS_URL: url });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  expect((thrown as Error).message).toMatch(/"#" or "\?".* percent-encode/);
  expect((thrown as Error).message).not.toMatch(/pa#ss|pa\?ss|ss#word/);
});

describe('a Redis URL built by hand, past resolveOptions', () => {
  it('is refused by the Redis adapter with a masked ConfigError, not the TypeError ioredis throws with the URL', () => {
    let thrown: unknown;
    try {
      redisTransport().routerStores(
        {
          config: {
            ...resolveOptions({ redis: { prefix: PREFIX }, name: 'by-hand' }),
            redis: { url: `redis://app:${WRONG}@127.0.0.1:6379`, cluster: undefined, prefix: PREFIX },
          },
          logger: recordingLogger(),
        },
        {},
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toContain('redis.url "redis://***@127.0.0.1:6379" is wrong');
    expect((thrown as Error).cause).toBeUndefined();
    expectNoSecret(everythingShown(thrown));
  });
});

describe("a bus's config printed", () => {
  it('shows its Redis URL and URL nodes masked, while code reads them as given', async () => {
    const url = `redis://app:${encodeURIComponent(WRONG)}@127.0.0.1:6379`;
    const onUrl = createEventBus({
      events: TEST_EVENTS,
      logger: recordingLogger(),
      transport: redisTransport({ url }),
    });
    const onNodes = createEventBus({
      events: TEST_EVENTS,
      logger: recordingLogger(),
      transport: redisTransport({ cluster: [url, '127.0.0.1:7001'] }),
    });
    try {
      expect(onUrl.config.redis.url).toBe(url);
      expect(JSON.parse(JSON.stringify(onUrl.config)).redis.url).toBe(url);
      for (const shown of [inspect(onUrl.config), inspect(onNodes.config, { depth: 5 })]) {
        expect(shown).toContain('redis://***@127.0.0.1:6379');
        expect(shown).not.toContain(encodeURIComponent(WRONG));
        expect(shown).not.toContain('app:');
      }
      expect(inspect(onNodes.config.redis)).toContain("'127.0.0.1:7001'");
      expect(inspect(resolveOptions({ redis: { url } }))).not.toContain(encodeURIComponent(WRONG));
    } finally {
      await Promise.all([onUrl.close(), onNodes.close()]);
    }
  });
});
