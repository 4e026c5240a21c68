/**
 * The router API's settings, on a plain-HTTP server on 127.0.0.1 (the
 * development mode): http URLs allowed, Routemaster's 64-byte MessagePack
 * limit on `data`, the token cache and its TTL, a clock given as a dependency,
 * and settings refused with a clear error.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashToken } from '../src/router/api-tokens.js';
import { createRouterApi, type RouterApi } from '../src/router/http/router-api.js';
import { silentLogger } from '../src/support/logger.js';
import { RoutemasterClient } from './helpers/routemaster-client.js';
import { describeOnEachStores, type RouterStores } from './helpers/router-stores.js';

const ROOT_KEY = 'settings-test-root-key';

describeOnEachStores('router-api-settings', 'router API settings on $name stores', (open) => {
  let stores: RouterStores;
  let api: RouterApi;
  const agent = new Agent();
  let root: RoutemasterClient;
  let clock = 1_700_000_000_000;

  beforeAll(async () => {
    stores = open();
    api = createRouterApi(
      { ...stores, logger: silentLogger, now: () => clock },
      {
        rootKey: ROOT_KEY,
        allowHttpUrls: true,
        maxDataBytes: 64,
        dataLimitEncoding: 'msgpack',
        tokenCacheMs: 2_000,
      },
    );
    const baseUrl = await api.listen();
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    root = new RoutemasterClient(baseUrl, ROOT_KEY, agent);
  });

  afterAll(async () => {
    await api?.close();
    await agent.close();
  });

  it('accepts http URLs and measures data as MessagePack against 64 bytes; t defaults to the clock', async () => {
    expect((await root.addToken('dev', 'dev-token')).status).toBe(201);
    const client = root.as('dev-token');
    const sub = root.as('dev-sub-token');
    expect((await root.addToken('dev-sub', 'dev-sub-token')).status).toBe(201);
    expect(
      (await sub.subscribe({ topics: ['dev'], callback: 'http://127.0.0.1:1/cb', uuid: 'u', max: 1 })).status,
    ).toBe(204);
    // Exactly 64 bytes of MessagePack (65 of JSON, which would be refused); 5 more characters are too many.
    const fits = { a: 'x'.repeat(57) };
    expect((await client.publish('dev', 'create', 'http://example.com/1', { data: fits })).status).toBe(200);
    const tooLarge = await client.publish('dev', 'create', 'http://example.com/1', {
      data: { a: 'x'.repeat(62) },
    });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.json).toMatchObject({ error: 'data_too_large' });
    expect((tooLarge.json as { message: string }).message).toContain('of msgpack; the limit is 64');
    expect((await client.publish('dev', 'create', 'ftp://example.com/1')).status).toBe(400);

    const taken = await stores.batches.take({
      worker: 'w',
      limit: 10,
      now: clock,
      leaseMs: 1_000,
      maxInFlightPerSubscriber: 10,
    });
    expect(taken.flatMap((batch) => batch.events)).toEqual([
      JSON.stringify({ topic: 'dev', type: 'create', url: 'http://example.com/1', t: clock, data: fits }),
    ]);
  });

  it('trusts a looked-up token for tokenCacheMs: a token removed elsewhere works until then', async () => {
    expect((await root.addToken('cached', 'cached-token')).status).toBe(201);
    const client = root.as('cached-token');
    expect((await client.get('/topics')).status).toBe(200);
    // Removed by another router process: this one does not know yet.
    expect(await stores.tokens.removeToken(hashToken('cached-token'))).toBeDefined();
    expect((await client.get('/topics')).status).toBe(200);
    clock += 2_000;
    expect((await client.get('/topics')).status).toBe(401);
  });

  it('refuses bad settings with an error naming the setting, never quoting the root key', () => {
    const deps = { ...stores, logger: silentLogger };
    expect(() => createRouterApi(deps, { rootKey: ' ' })).toThrow(/rootKey is required/);
    expect(() => createRouterApi(deps, { rootKey: ROOT_KEY, maxDataBytes: 0 })).toThrow(
      /maxDataBytes must be a positive integer/,
    );
    expect(() => createRouterApi(deps, { rootKey: ROOT_KEY, tokenCacheMs: -1 })).toThrow(/tokenCacheMs/);
    expect(() => createRouterApi(deps, { rootKey: ROOT_KEY, dataLimitEncoding: 'cbor' as 'json' })).toThrow(
      /dataLimitEncoding must be 'json' or 'msgpack'/,
    );
  });
});
