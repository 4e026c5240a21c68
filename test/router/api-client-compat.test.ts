/**
 * Routemaster's own client against the router API, over HTTPS on 127.0.0.1,
 * on each adapter of the store ports: what routemaster-client does (list
 * then delete tokens, subscribe without a uuid, resubscribe without timeout
 * or max) and what Routemaster's server accepts (unknown token keys, JSON
 * in text/plain or form bodies, the root key on DELETE /subscriber, the
 * health and scaling probes).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { SCALING_COUNT_REUSE_MS } from '../../src/router/http/routes/health.routes.js';
import { listedTokenKeys } from '../../src/router/listed-token-key.js';
import { RubyClientError } from '../helpers/routemaster-client.js';
import { describeRouterApi, expectError } from '../helpers/router-api-bed.js';

describeRouterApi('router-api-compat', 'routemaster-client against the router API on $name stores', (bed) => {
  it('lists every token under its own ASCII key, and token_del deletes each listed key', async () => {
    // Two tokens with the same hint (`dup…`), and two generated ones of one client.
    expect(await bed.root.tokenAdd('dupes', 'dup-token-1')).toBe('dup-token-1');
    expect(await bed.root.tokenAdd('dupes', 'dup-token-2')).toBe('dup-token-2');
    const generated = [await bed.root.tokenAdd('twins'), await bed.root.tokenAdd('twins')];
    const tokens = ['dup-token-1', 'dup-token-2', ...generated];
    for (const token of tokens) expect((await bed.root.as(token).get('/topics')).status).toBe(200);

    const mine = (listed: Map<string, string>) =>
      [...listed].filter(([, name]) => name === 'dupes' || name === 'twins');
    const listed = mine(await bed.root.tokenList());
    expect(listed).toHaveLength(4);
    for (const [key] of listed) {
      expect(key).toMatch(/^[\x21-\x7e]+$/);
      for (const token of tokens) expect(key).not.toContain(token.slice(-8));
    }
    expect(listed.filter(([, name]) => name === 'dupes').map(([key]) => key.slice(0, 6))).toEqual([
      'dup...',
      'dup...',
    ]);

    for (const [key] of listed) await bed.root.tokenDel(key);
    expect(mine(await bed.root.tokenList())).toEqual([]);
    for (const token of tokens) expectError(await bed.root.as(token).get('/topics'), 401, 'unauthorized');
  });

  it('answers 404 for a listed key that designates no token, 409 for a bare hint of several', async () => {
    await bed.root.tokenAdd('stale', 'stale-token-1');
    await bed.root.tokenAdd('stale', 'stale-token-2');
    const [key] = [...(await bed.root.tokenList())].find(([, name]) => name === 'stale') ?? [''];
    const otherDigit = key.endsWith('0') ? '1' : '0';
    expectError(await bed.root.delete(`/api_tokens/${key.slice(0, -1)}${otherDigit}`), 404, 'no_token');
    expectError(await bed.root.delete(`/api_tokens/${key}zz`), 404, 'no_token');
    // The bare hints listings used to show still work: 409 while they designate several tokens.
    expectError(await bed.root.delete(`/api_tokens/${encodeURIComponent('stal…')}`), 409, 'ambiguous_hint');
    await bed.root.tokenDel(key);
    await expect(bed.root.tokenDel(key)).rejects.toThrow(RubyClientError);
    expect((await bed.root.delete(`/api_tokens/${encodeURIComponent('stal…')}`)).status).toBe(204);
    expect([...(await bed.root.tokenList()).values()]).not.toContain('stale');
  });

  it('subscribes without a uuid, as routemaster-client may: no credentials, until a uuid is given', async () => {
    const sub = await bed.newClient('no-uuid');
    const body = { topics: ['anonymous'], callback: 'https://no-uuid.example.com/events' };
    expect((await sub.subscribe(body)).status).toBe(204);
    expect(await bed.stores.subscribers.getSubscriber('no-uuid')).toMatchObject({ ...body, uuid: null });
    const shown = async () =>
      ((await sub.get('/subscriptions')).json as { subscriber: string; uuid: unknown }[]).find(
        (entry) => entry.subscriber === 'no-uuid',
      );
    expect(await shown()).toMatchObject({ uuid: null, callback: body.callback });
    expect((await sub.subscribe({ ...body, uuid: 'now-with-uuid' })).status).toBe(204);
    expect(await shown()).toMatchObject({ uuid: 'now-with-uuid' });
    // As in Routemaster, a resubscription without uuid sends no credentials from then on.
    expect((await sub.subscribe({ ...body, uuid: null })).status).toBe(204);
    expect(await shown()).toMatchObject({ uuid: null });
    // An empty uuid, which Routemaster takes (it sends an empty username, as without one): none either.
    expect((await sub.subscribe({ ...body, uuid: 'again' })).status).toBe(204);
    expect((await sub.subscribe({ ...body, uuid: '' })).status).toBe(204);
    expect(await shown()).toMatchObject({ uuid: null });
    for (const uuid of [0, 1, {}, [], true, ' ', 'has space']) {
      expectError(await sub.subscribe({ ...body, uuid }), 400, 'bad_uuid');
    }
  });

  it('keeps timeout and max on a resubscription that leaves them out, as Routemaster does', async () => {
    const sub = await bed.newClient('keeps-batching');
    const body = { topics: ['kept'], callback: 'https://keeps.example.com/events', uuid: 'keeps' };
    const settings = async () => {
      const record = await bed.stores.subscribers.getSubscriber('keeps-batching');
      return { timeoutMs: record?.timeoutMs, maxEvents: record?.maxEvents, topics: record?.topics };
    };
    expect((await sub.subscribe(body)).status).toBe(204);
    expect(await settings()).toEqual({ timeoutMs: 500, maxEvents: 100, topics: ['kept'] });
    expect((await sub.subscribe({ ...body, timeout: 3_600_000, max: 7 })).status).toBe(204);
    expect((await sub.subscribe({ ...body, topics: ['kept', 'added'] })).status).toBe(204);
    expect(await settings()).toEqual({ timeoutMs: 3_600_000, maxEvents: 7, topics: ['added', 'kept'] });
    expect((await sub.subscribe({ ...body, timeout: null, max: 9 })).status).toBe(204);
    expect(await settings()).toEqual({ timeoutMs: 3_600_000, maxEvents: 9, topics: ['kept'] });
    // The batches follow: ten events make one full batch of 9, ready, and one waiting its hour.
    const pub = await bed.newClient('keeps-pub');
    for (let i = 0; i < 10; i += 1) await pub.publish('kept', 'noop', `https://keeps.example.com/${i}`);
    const batches = (await bed.takeAll()).filter((batch) => batch.subscriber === 'keeps-batching');
    expect(batches.map((batch) => batch.events.length)).toEqual([9]);
  });

  it('makes a token from a body with keys it does not know, ignoring them as Routemaster does', async () => {
    const answer = await bed.root.post(
      '/api_tokens',
      JSON.stringify({ name: 'extra', colour: 'red', ttl: 3 }),
    );
    expect(answer.status).toBe(201);
    const { token } = answer.json as { token: string };
    expect(answer.json).toEqual({ name: 'extra', token: expect.stringMatching(/^extra--[0-9a-f]{32}$/) });
    expect((await bed.root.as(token).get('/topics')).status).toBe(200);
    expectError(await bed.root.post('/api_tokens', JSON.stringify({ colour: 'red' })), 400, 'bad_name');
  });

  it('answers the root key on DELETE /subscriber as Routemaster does: 404, the root is no subscriber', async () => {
    const sub = await bed.newClient('rooted');
    await sub.subscribe({ topics: ['rooted'], callback: 'https://rooted.example.com/events' });
    for (const path of ['/subscriber', '/subscriber/topics/rooted']) {
      const answer = await bed.root.delete(path);
      expectError(answer, 404, 'no_subscriber');
      expect((answer.json as { message: string }).message).toContain('root key');
    }
    expect((await bed.stores.subscribers.getSubscriber('rooted'))?.topics).toEqual(['rooted']);
    expect((await sub.delete('/subscriber')).status).toBe(204);
  });

  it('answers GET /health/ping with pong, without credentials, as Routemaster does', async () => {
    for (const path of ['/health/ping', '/health/ping.json']) {
      const answer = await bed.anonymous.get(path);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ pong: expect.any(String) });
      expect(Date.parse((answer.json as { pong: string }).pong)).not.toBeNaN();
    }
  });

  it('answers GET /pulse/scaling with the batches due and, from 100 on, after a second', async () => {
    const sub = await bed.newClient('scaled-sub');
    const pub = await bed.newClient('scaled-pub');
    await sub.subscribe({ topics: ['scaled'], callback: 'https://scaled.example.com/', max: 1 });
    expectError(await bed.anonymous.get('/pulse/scaling'), 401, 'unauthorized');
    const probe = async () => {
      const started = performance.now();
      const answer = await pub.get('/pulse/scaling');
      expect(answer.status).toBe(200);
      return { ...(answer.json as { due: number; scale_up: boolean }), ms: performance.now() - started };
    };
    const before = await probe();
    expect(before).toMatchObject({ threshold: 100, deadline_ms: 1_000, scale_up: before.due >= 100 });
    const events = 100 - before.due;
    for (let i = 0; i < events; i += 1)
      await pub.publish('scaled', 'noop', `https://scaled.example.com/${i}`);
    await sleep(SCALING_COUNT_REUSE_MS); // past the count the first probe made
    const busy = await probe();
    expect(busy).toMatchObject({ due: 100, scale_up: true });
    expect(busy.ms).toBeGreaterThanOrEqual(990); // a timer may fire a millisecond early by this clock
    await bed.takeAll();
    expect(await probe()).toMatchObject({ due: 0, scale_up: false });
  });

  it('counts once for a flood of GET /pulse/scaling: probes share the count under way and a recent one', async () => {
    const sub = await bed.newClient('flood-sub');
    const pub = await bed.newClient('flood-pub');
    await sub.subscribe({ topics: ['flood'], callback: 'https://flood.example.com/', max: 1 });
    const batches = bed.stores.batches;
    const real = batches.countDue.bind(batches);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const counts = vi.spyOn(batches, 'countDue').mockImplementation(async (by) => {
      await gate;
      return real(by);
    });
    try {
      await sleep(SCALING_COUNT_REUSE_MS); // past any count an earlier test made
      const flood = Promise.all(Array.from({ length: 20 }, () => pub.get('/pulse/scaling')));
      await vi.waitFor(() => expect(counts).toHaveBeenCalled(), { timeout: 10_000 });
      await sleep(300);
      release();
      const answers = await flood;
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      const [due = -1, ...others] = new Set(answers.map((answer) => (answer.json as { due: number }).due));
      expect(others).toEqual([]);
      expect(counts).toHaveBeenCalledTimes(1);
      // Past the reuse window, counted again.
      await sleep(SCALING_COUNT_REUSE_MS);
      for (let i = 0; i < 3; i += 1) await pub.publish('flood', 'noop', `https://flood.example.com/${i}`);
      const after = (await pub.get('/pulse/scaling')).json as { due: number };
      expect(after.due).toBe(due + 3);
      expect(counts).toHaveBeenCalledTimes(2);
    } finally {
      counts.mockRestore();
      await bed.takeAll();
    }
  });

  it('parses JSON sent as text/plain, form-encoded or with no content type, as Routemaster does', async () => {
    const pub = await bed.newClient('curl-user');
    const event = JSON.stringify({ type: 'create', url: 'https://curl.example.com/1', timestamp: null });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'text/plain; charset=utf-8']) {
      expect((await pub.post('/topics/curled', event, type)).status).toBe(200);
    }
    expect((await pub.send('POST', '/topics/curled', event, false)).status).toBe(200);
    const topics = (await pub.get('/topics')).json as { name: string; events: number }[];
    expect(topics.find((topic) => topic.name === 'curled')?.events).toBe(4);
    // `curl -d` with the root key: a form-encoded body holding JSON.
    const made = await bed.root.post('/api_tokens', '{"name":"curled"}', 'application/x-www-form-urlencoded');
    expect({ status: made.status, name: (made.json as { name: string }).name }).toEqual({
      status: 201,
      name: 'curled',
    });
    expectError(
      await pub.post('/topics/curled', 'type=create', 'application/x-www-form-urlencoded'),
      400,
      'bad_json',
    );
    expectError(
      await pub.post('/topics/curled', '<event/>', 'application/xml'),
      415,
      'unsupported_media_type',
    );
  });

  it('caps entity and callback URLs at 2,048 bytes: url_too_long, without echoing the URL', async () => {
    const client = await bed.newClient('long-urls');
    const url = (bytes: number) =>
      `https://long.example.com/${'a'.repeat(bytes - 'https://long.example.com/'.length)}`;
    expect(Buffer.byteLength(url(2_048))).toBe(2_048);
    const subscription = { topics: ['long_urls'], uuid: 'long' };
    expect((await client.subscribe({ ...subscription, callback: url(2_048) })).status).toBe(204);
    expect((await client.publish('long_urls', 'create', url(2_048))).status).toBe(200);
    for (const answer of [
      await client.subscribe({ ...subscription, callback: url(2_049) }),
      await client.publish('long_urls', 'create', url(2_049)),
      await client.publish('long_urls', 'create', `https://long.example.com/${'é'.repeat(1_020)}`),
    ]) {
      expectError(answer, 400, 'url_too_long');
      expect((answer.json as { message: string }).message).toMatch(/at most 2,048 bytes/);
      expect(answer.text).not.toContain('aaaaaaaa');
    }
    expect((await bed.stores.subscribers.getSubscriber('long-urls'))?.callback).toBe(url(2_048));
  });
});

describe('listed token keys', () => {
  it('show more hash digits where two tokens share the first twelve', () => {
    const token = (hash: string) => ({ name: 'n', hint: 'abc…', hash, createdAt: 0 });
    const keys = listedTokenKeys([
      token(`${'a'.repeat(14)}0${'f'.repeat(49)}`),
      token(`${'a'.repeat(14)}1${'f'.repeat(49)}`),
      token(`b${'0'.repeat(63)}`),
    ]);
    expect(keys).toEqual([
      `abc...${'a'.repeat(14)}0`,
      `abc...${'a'.repeat(14)}1`,
      `abc...b${'0'.repeat(11)}`,
    ]);
  });
});
