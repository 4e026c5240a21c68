import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningRouter, startRouter } from '../../src/bus/start-router.js';
import type { TransportAdapter } from '../../src/index.js';
import { ConfigError } from '../../src/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { OwnRedis } from '../helpers/own-redis.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { deleteKeys, openRedis, testPrefix } from '../helpers/redis.js';
import { RoutemasterClient } from '../helpers/routemaster-client.js';
import { testRedis } from '../helpers/transports.js';

// What the router does on an operator's bad day: Redis away or refusing its
// credentials, and requests built to break it.
const PREFIX = testPrefix('router-bad-days');
const ROOT_KEY = 'bad-days-root-key';
const logger = recordingLogger();
/** What the router warned and logged as errors, in order. */
const lines = () => logger.at('warn', 'error');
let router: RunningRouter | undefined;
const agent = new Agent();
afterEach(async () => {
  await router?.close();
  router = undefined;
  logger.clear();
});
/** The prefixes {@link apiStores} handed out, their keys deleted after the file. */
const apiPrefixes: string[] = [];
afterAll(async () => {
  const redis = openRedis();
  for (const prefix of apiPrefixes) await deleteKeys(redis, prefix);
  await redis.quit();
});

/** The router's stores on the tests' Redis under a prefix of their own, so each test starts with no tokens. */
function apiStores(): TransportAdapter {
  const prefix = testPrefix('router-bad-days-api');
  apiPrefixes.push(prefix);
  return testRedis(prefix);
}

async function start(transport: TransportAdapter): Promise<RoutemasterClient> {
  router = await startRouter(
    { prefix: PREFIX },
    { port: 0, api: { rootKey: ROOT_KEY, allowHttpUrls: true }, roles: ['api'] },
    { logger, transport },
  );
  return new RoutemasterClient(router.url as string, ROOT_KEY, agent);
}

describe('the router with Redis away', () => {
  it('answers publishes 503 with Retry-After, pulse 500, and logs one line, not one per request', async () => {
    // Nothing listens on port 1: every command fails after its retries.
    const root = await start(redisTransport({ url: 'redis://127.0.0.1:1' }));
    expect(lines().map((l) => l.message)).toContain(
      'router: its store does not answer yet; the router starts and waits for it',
    );
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => root.send('POST', '/api_tokens', JSON.stringify({ name: 'shop' }))),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.json).toMatchObject({ error: 'store_unavailable' });
    }
    expect(lines().filter((l) => l.message === 'router API: the store is unavailable')).toHaveLength(1);
    expect((await root.get('/pulse')).status).toBe(500);
  });

  it('starts within a bound on a Redis that accepts connections and answers nothing (frozen), tokens listed or not', async () => {
    const frozen = await OwnRedis.start();
    frozen.freeze();
    try {
      const began = Date.now();
      router = await startRouter(
        { redisUrl: frozen.url, prefix: PREFIX },
        { port: 0, roles: ['api'], api: { rootKey: ROOT_KEY }, clients: ['shop--0123456789abcdef'] },
        { logger, transport: redisTransport() },
      );
      expect(Date.now() - began).toBeLessThan(15_000);
      const said = lines().map((l) => l.message);
      expect(said).toContain('router: its store does not answer yet; the router starts and waits for it');
      expect(said).toContain(
        'router: the store does not answer yet; the listed client tokens are imported once it does',
      );
      expect(JSON.stringify(lines())).not.toContain('0123456789abcdef');
    } finally {
      frozen.thaw();
      await router?.close();
      router = undefined;
      await frozen.stop();
    }
  }, 40_000);

  it('refuses to start when Redis refuses its credentials, saying which setting to fix and not the password', async () => {
    const started = startRouter(
      { redisUrl: 'redis://nobody:s3cret-pw@127.0.0.1:6379', prefix: PREFIX },
      { port: 0, api: { rootKey: ROOT_KEY } },
      { logger, transport: redisTransport() },
    );
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(/REDIS_URL/);
    const error = await started.catch((e: Error) => e);
    expect(String(error)).not.toContain('s3cret-pw');
  });
});

describe('requests built to break the API', () => {
  it('refuses data nested past what can be stored with a 400, not a 500', async () => {
    const root = await start(apiStores());
    const token = ((await root.addToken('shop')).json as { token: string }).token;
    const deep = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    const answer = await root
      .as(token)
      .send('POST', '/topics/orders', `{"type":"create","url":"https://x.test/1","data":${deep}}`);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'data_too_deep' });
    expect(lines().filter((l) => l.level === 'error')).toEqual([]);
  });

  it('refuses a "__proto__" key written with escapes', async () => {
    const root = await start(apiStores());
    const token = ((await root.addToken('shop')).json as { token: string }).token;
    const answer = await root
      .as(token)
      .send(
        'POST',
        '/topics/orders',
        '{"type":"create","url":"https://x.test/1","data":{"\\u005f_proto__":{"isAdmin":true}}}',
      );
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'bad_json' });
  });

  it('answers a URL it cannot decode in its own shape, without echoing the path', async () => {
    const root = await start(apiStores());
    const answer = await root.send('DELETE', '/api_tokens/shop--secret%zz');
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: 'bad_request',
      message: 'the request URL or headers are malformed',
    });
    expect(answer.text).not.toContain('secret');
  });
});
