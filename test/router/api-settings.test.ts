/**
 * The router API's settings, on a plain-HTTP server on 127.0.0.1 (the
 * development mode): http URLs allowed, Routemaster's 64-byte MessagePack
 * limit on `data`, the token cache and its TTL, a clock given as a dependency,
 * and settings refused with a clear error.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/router/api-tokens.js';
import { msgpackSize } from '../../src/router/http/msgpack-size.js';
import { createRouterApi, type RouterApi } from '../../src/router/http/router-api.js';
import { SCALING_COUNT_REUSE_MS } from '../../src/router/http/routes/health.routes.js';
import { silentLogger } from '../../src/support/logger.js';
import { RoutemasterClient } from '../helpers/routemaster-client.js';
import { describeOnEachStores, type RouterStores } from '../helpers/router-stores.js';

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
    // Exactly 64 bytes of MessagePack as Ruby's msgpack (Routemaster's) packs it, fixmap and str8
    // headers (67 of JSON, which would be refused); one character more is too many.
    const fits = { a: 'x'.repeat(59) };
    expect((await client.publish('dev', 'create', 'http://example.com/1', { data: fits })).status).toBe(200);
    // 64 too: fixmap 1, uint16 3, float64 9, true and nil 1 each, fixarray 1, fixint 1, int8 2, fixstr 1 + 31.
    const mixed = { n: 300, f: 1.5, b: true, z: null, l: [1, -1, -33], s: 'y'.repeat(31) };
    expect((await client.publish('dev', 'noop', 'http://example.com/2', { data: mixed })).status).toBe(200);
    const tooLarge = await client.publish('dev', 'create', 'http://example.com/1', {
      data: { a: 'x'.repeat(60) },
    });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.json).toMatchObject({ error: 'data_too_large' });
    expect((tooLarge.json as { message: string }).message).toContain(
      'data is 65 bytes of msgpack; the limit is 64',
    );
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
      JSON.stringify({ topic: 'dev', type: 'noop', url: 'http://example.com/2', t: clock, data: mixed }),
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

  it('counts the due batches afresh past the reuse window though the router clock stands still', async () => {
    expect((await root.addToken('still', 'still-token')).status).toBe(201);
    expect((await root.addToken('still-sub', 'still-sub-token')).status).toBe(201);
    const client = root.as('still-token');
    const body = { topics: ['still'], callback: 'http://127.0.0.1:1/cb', max: 1 };
    expect((await root.as('still-sub-token').subscribe(body)).status).toBe(204);
    const due = async () => ((await client.get('/pulse/scaling')).json as { due: number }).due;
    await sleep(SCALING_COUNT_REUSE_MS);
    const before = await due();
    expect((await client.publish('still', 'noop', 'http://example.com/still')).status).toBe(200);
    // The router's clock has not moved: the reuse window runs on the monotonic clock.
    await sleep(SCALING_COUNT_REUSE_MS);
    expect(await due()).toBe(before + 1);
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

describe('MessagePack sizes, as Ruby msgpack packs', () => {
  it.each([
    ['an empty map', {}, 1],
    [
      'a map of 16',
      Object.fromEntries(Array.from({ length: 16 }, (_, i) => [String.fromCharCode(97 + i), 0])),
      3 + 16 * (2 + 1),
    ],
    ['an array of 16', Array.from({ length: 16 }, () => 0), 3 + 16],
    [
      'strings at the fixstr and str8 bounds',
      ['x'.repeat(31), 'x'.repeat(32), 'x'.repeat(255), 'x'.repeat(256)],
      1 + 32 + 34 + 257 + 259,
    ],
    ['UTF-8 bytes, not characters', 'é'.repeat(16), 34],
    [
      'integers at each bound',
      [127, 128, 255, 256, 65_535, 65_536, 2 ** 32, -32, -33, -128, -129, -(2 ** 31) - 1],
      1 + 1 + 2 + 2 + 3 + 3 + 5 + 9 + 1 + 2 + 2 + 3 + 9,
    ],
    ['floats as float64, nil and booleans in a byte', [0.5, null, true, false], 1 + 9 + 3],
  ])('%s', (_, value, size) => {
    expect(msgpackSize(value)).toBe(size);
  });
});
