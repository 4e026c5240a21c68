/**
 * The router's HTTP API over real HTTPS on 127.0.0.1 (a self-signed
 * certificate made at test time), with requests shaped as routemaster-client
 * sends them, against each adapter of the store ports: auth, tokens,
 * publishing and its validation, topic ownership, subscriptions and their
 * figures. The extensions are in api-extensions.test.ts.
 */
import { expect, it } from 'vitest';
import { hashToken } from '../../src/router/api-tokens.js';
import type { Answer, RoutemasterClient } from '../helpers/routemaster-client.js';
import { describeRouterApi, expectError, HTTPS_URL, ROOT_KEY } from '../helpers/router-api-bed.js';

/** A client token of the form `<name>--<32 hex>`. */
const GENERATED = /^([a-z0-9:_-]+)--[0-9a-f]{32}$/;

describeRouterApi('router-api', 'router API on $name stores', (bed) => {
  it('asks for Basic credentials: none, an unknown token, or the wrong kind get 401', async () => {
    const billing = await bed.newClient('billing');
    for (const answer of [
      await bed.anonymous.get('/topics'),
      await bed.root.as('nobody--0123').get('/topics'),
      await bed.root.publish('widgets', 'create', HTTPS_URL), // the root key does not publish
      await billing.get('/api_tokens'), // a client token does not manage tokens
      await bed.anonymous.post('/topics/widgets', '{"not json'), // credentials are checked before the body
    ]) {
      expectError(answer, 401, 'unauthorized');
      expect(answer.headers['www-authenticate']).toBe('Basic realm="commitbus"');
    }
    expect((await billing.get('/topics')).status).toBe(200);
    expect((await bed.anonymous.get('/health')).json).toEqual({});
  });

  it('manages tokens with the root key: generated or given, listed by key, deleted with the subscription', async () => {
    const generated = await bed.root.addToken('search');
    expect(generated.status).toBe(201);
    const { name, token } = generated.json as { name: string; token: string };
    expect(name).toBe('search');
    expect(token).toMatch(GENERATED);
    const given = await bed.root.addToken('search', 'search-second-token');
    expect({ status: given.status, json: given.json }).toEqual({
      status: 201,
      json: { name: 'search', token: 'search-second-token' },
    });
    expectError(await bed.root.addToken('search', 'search-second-token'), 409, 'token_exists');
    expectError(await bed.root.addToken('Search'), 400, 'bad_name');
    expectError(await bed.root.addToken('search', 'has space'), 400, 'bad_token');
    expectError(await bed.root.addToken('search', ROOT_KEY), 400, 'bad_token');

    const listed = (await bed.root.get('/api_tokens')).json as { name: string; token: string }[];
    const mine = listed.filter((entry) => entry.name === 'search').map((entry) => entry.token);
    // Only hashes are stored: a key is the hint (the name and 4 hex digits of a generated token, else
    // 4 characters), '...' and 12 digits of the hash. Listed oldest first, and by hash within one
    // millisecond: either order.
    expect([...mine].sort()).toEqual(
      [
        `search--${token.slice('search--'.length, 'search--'.length + 4)}...${hashToken(token).slice(0, 12)}`,
        `sear...${hashToken('search-second-token').slice(0, 12)}`,
      ].sort(),
    );

    const first = bed.root.as(token);
    const second = bed.root.as('search-second-token');
    expect((await first.subscribe({ topics: ['orders'], callback: HTTPS_URL, uuid: 'search' })).status).toBe(
      204,
    );
    expect((await bed.root.delete(`/api_tokens/${token}`)).status).toBe(204);
    expectError(await first.get('/topics'), 401, 'unauthorized');
    // The client still has a token: its subscription stays.
    expect(await subscriberNames()).toContain('search');
    expect((await bed.root.delete('/api_tokens/search-second-token')).status).toBe(204);
    expect(await subscriberNames()).not.toContain('search');
    expectError(await second.get('/topics'), 401, 'unauthorized');
    expect((await bed.root.delete('/api_tokens/search-second-token')).status).toBe(204);
  });

  it('deletes a token by a bare hint, as listings showed them before, when exactly one token has it: 404 for none, 409 for several', async () => {
    const listedKeys = async () =>
      ((await bed.root.get('/api_tokens')).json as { name: string; token: string }[])
        .filter((entry) => entry.name === 'hinted')
        .map((entry) => entry.token);
    const generated = await bed.newClient('hinted');
    expect((await bed.root.addToken('hinted', 'hint-same-token-1')).status).toBe(201);
    expect((await bed.root.addToken('hinted', 'hint-same-token-2')).status).toBe(201);
    const keys = await listedKeys();
    const generatedKey = keys.find((key) => !key.startsWith('hint...')) ?? '';
    expect(generatedKey).toMatch(/^hinted--[0-9a-f]{4}\.\.\.[0-9a-f]{12}$/);
    const path = (hint: string) => `/api_tokens/${encodeURIComponent(hint)}`;

    const ambiguous = await bed.root.delete(path('hint…'));
    expectError(ambiguous, 409, 'ambiguous_hint');
    expect((ambiguous.json as { message: string }).message).toContain('pass the full token');
    expectError(await bed.root.delete(path('nope…')), 404, 'no_token');
    expect(await listedKeys()).toEqual(keys);

    expect((await bed.root.delete(path(`${generatedKey.split('...')[0]}…`))).status).toBe(204);
    expectError(await generated.get('/topics'), 401, 'unauthorized');
    expect(await listedKeys()).toEqual(keys.filter((key) => key !== generatedKey));
    expect((await bed.root.as('hint-same-token-1').get('/topics')).status).toBe(200);
  });

  it('publishes an event as {topic, type, url, t, data?}; the first publisher owns the topic', async () => {
    const catalog = await bed.newClient('catalog');
    const reader = await bed.newClient('reader');
    await reader.subscribe({ topics: ['products'], callback: HTTPS_URL, uuid: 'reader-uuid', max: 1 });
    const before = Date.now();
    const answer = await catalog.publish('products', 'create', HTTPS_URL);
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 200, text: '' });
    const after = Date.now();
    await catalog.publish('products', 'update', HTTPS_URL, { t: 1_600_000_000_000, data: { price: 3 } });
    expectError(await reader.publish('products', 'delete', HTTPS_URL), 403, 'topic_claimed');

    const events = (await bed.takeAll()).flatMap((batch) => batch.events.map((event) => JSON.parse(event)));
    expect(events).toHaveLength(2);
    expect(Object.keys(events[0])).toEqual(['topic', 'type', 'url', 't']);
    expect(events[0]).toEqual({ topic: 'products', type: 'create', url: HTTPS_URL, t: expect.any(Number) });
    expect(events[0].t).toBeGreaterThanOrEqual(before);
    expect(events[0].t).toBeLessThanOrEqual(after);
    expect(events[1]).toEqual({
      topic: 'products',
      type: 'update',
      url: HTTPS_URL,
      t: 1_600_000_000_000,
      data: { price: 3 },
    });
    const topics = (await catalog.get('/topics')).json;
    expect(topics).toContainEqual({ name: 'products', publisher: 'catalog', events: 2 });
    expect(await bed.registry.getSingleMetricAsString('router_events_published_total')).toContain(
      'router_events_published_total{topic="products"} 2',
    );
  });

  it('refuses a bad event with 400 and a JSON body saying what is wrong', async () => {
    const client = await bed.newClient('validator');
    const publish = (body: string, topic = 'checked') => client.post(`/topics/${topic}`, body);
    const cases: [Answer, string][] = [
      [await client.publish('Checked', 'create', HTTPS_URL), 'bad_topic'],
      [await client.publish('checked', 'created', HTTPS_URL), 'bad_type'],
      [await client.publish('checked', 'create', 'http://example.com/1'), 'bad_url'],
      [await client.publish('checked', 'create', 'https://example.com/1?x=1'), 'bad_url'],
      [await client.publish('checked', 'create', 'not a url'), 'bad_url'],
      [await client.publish('checked', 'create', 'https://user:pass@example.com/1'), 'bad_url'],
      [await publish('{"type":"create"}'), 'bad_url'],
      [await publish(`{"type":"create","url":"${HTTPS_URL}","timestamp":"yesterday"}`), 'bad_timestamp'],
      [await publish(`{"type":"create","url":"${HTTPS_URL}","data":[1]}`), 'bad_data'],
      [
        await client.publish('checked', 'create', HTTPS_URL, { data: { blob: 'x'.repeat(70_000) } }),
        'data_too_large',
      ],
      [await publish(`{"type":"create","url":"${HTTPS_URL}","colour":"red"}`), 'bad_event'],
      [await publish('[1,2]'), 'bad_event'],
      [await publish(`{"type":"create","url":"${HTTPS_URL}","data":{"__proto__":{"x":1}}}`), 'bad_json'],
      [await publish(''), 'bad_event'],
      [await publish('{"type": "create", "token": "validator--secret'), 'bad_json'],
    ];
    for (const [answer, code] of cases) expectError(answer, 400, code);
    expect(cases.at(-1)?.[0].text).not.toContain('secret');
    expectError(await publish('x'.repeat(250_000)), 413, 'body_too_large');
    expectError(
      await client.post('/topics/checked', 'type: create', 'application/yaml'),
      415,
      'unsupported_media_type',
    );
    // Nothing was published: the topic was never claimed.
    expect(
      ((await client.get('/topics')).json as { name: string }[]).map((topic) => topic.name),
    ).not.toContain('checked');
  });

  it('lists topics and lets only their publisher or the root key delete them', async () => {
    const owner = await bed.newClient('owner');
    const other = await bed.newClient('other');
    await owner.publish('mine', 'noop', HTTPS_URL);
    await owner.publish('theirs', 'noop', HTTPS_URL);
    const listed = await other.get('/topics'); // Content-Type json, no body
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual(expect.arrayContaining([{ name: 'mine', publisher: 'owner', events: 1 }]));
    expectError(await other.delete('/topics/mine'), 403, 'topic_claimed');
    expect((await owner.delete('/topics/mine')).status).toBe(204);
    expectError(await owner.delete('/topics/mine'), 404, 'no_topic');
    expect((await bed.root.delete('/topics/theirs')).status).toBe(204);
    const names = ((await bed.root.get('/topics')).json as { name: string }[]).map((topic) => topic.name);
    expect(names).not.toContain('mine');
    expect(names).not.toContain('theirs');
  });

  it('subscribes (alias /subscriber), creating topics, with Routemaster defaults, and refuses bad bodies', async () => {
    const sub = await bed.newClient('subscriber-a');
    const body = { topics: ['alpha', 'beta'], callback: 'https://a.example.com/events', uuid: 'a-uuid' };
    expect((await sub.subscribe(body)).status).toBe(204);
    expect((await sub.get('/topics')).json as unknown[]).toEqual(
      expect.arrayContaining([
        { name: 'alpha', publisher: null, events: 0 },
        { name: 'beta', publisher: null, events: 0 },
      ]),
    );
    expect(await bed.stores.subscribers.getSubscriber('subscriber-a')).toMatchObject({
      callback: body.callback,
      uuid: 'a-uuid',
      timeoutMs: 500,
      maxEvents: 100,
      topics: ['alpha', 'beta'],
      ordered: false,
      paused: false,
    });
    expect(
      (await sub.subscribe({ ...body, topics: ['beta'], timeout: 0, max: 7, ordered: true }, '/subscriber'))
        .status,
    ).toBe(204);
    expect(await bed.stores.subscribers.getSubscriber('subscriber-a')).toMatchObject({
      topics: ['beta'],
      timeoutMs: 0,
      maxEvents: 7,
      ordered: true,
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ ...body, colour: 'red' }, 'bad_subscription'],
      [{ ...body, topics: 'alpha' }, 'bad_topics'],
      [{ ...body, topics: ['Alpha'] }, 'bad_topics'],
      [{ ...body, callback: 'http://a.example.com/' }, 'bad_callback'],
      [{ ...body, callback: 'https://user:pass@a.example.com/events' }, 'bad_callback'],
      [{ ...body, callback: 'https://token@a.example.com/events' }, 'bad_callback'],
      [{ ...body, uuid: 'has:colon' }, 'bad_uuid'],
      [{ ...body, timeout: 3_600_001 }, 'bad_timeout'],
      [{ ...body, timeout: -1 }, 'bad_timeout'],
      [{ ...body, max: 0 }, 'bad_max'],
      [{ ...body, max: 1.5 }, 'bad_max'],
      [{ ...body, max: 10_001 }, 'bad_max'],
      [
        {
          ...body,
          topics: Array.from(
            { length: 1_001 },
            (_, i) =>
              `t_${'abcdefghij'[i % 10]}${'abcdefghij'[Math.floor(i / 10) % 10]}${'abcdefghij'[Math.floor(i / 100) % 10]}${i >= 1000 ? 'x' : ''}`,
          ),
        },
        'bad_topics',
      ],
      [{ ...body, ordered: 'yes' }, 'bad_ordered'],
    ];
    for (const [bad, code] of cases) expectError(await sub.subscribe(bad), 400, code);
    const withUserinfo = await sub.subscribe({ ...body, callback: 'https://user:hunter2@a.example.com/' });
    expect((withUserinfo.json as { message: string }).message).toContain('put the credential in uuid');
    expect(withUserinfo.text).not.toContain('hunter2');
    const http = await sub.subscribe({ ...body, callback: 'http://a.example.com/' });
    expect((http.json as { message: string }).message).toMatch(
      /ROUTER_ALLOW_HTTP_URLS=true.*commitbus router --dev/,
    );
    expect((await bed.stores.subscribers.getSubscriber('subscriber-a'))?.topics).toEqual(['beta']);
  });

  it('unsubscribes from one topic and entirely: 204, then 404', async () => {
    const sub = await bed.newClient('subscriber-b');
    expectError(await sub.delete('/subscriber'), 404, 'no_subscriber');
    await sub.subscribe({ topics: ['gamma', 'delta'], callback: HTTPS_URL, uuid: 'b' });
    expect((await sub.delete('/subscriber/topics/gamma')).status).toBe(204);
    expectError(await sub.delete('/subscriber/topics/gamma'), 404, 'not_subscribed');
    expect((await bed.stores.subscribers.getSubscriber('subscriber-b'))?.topics).toEqual(['delta']);
    // The Ruby client's DELETE has no body; a JSON content type with an empty body is fine too.
    expect((await sub.send('DELETE', '/subscriber', undefined, true)).status).toBe(204);
    expectError(await sub.delete('/subscriber'), 404, 'no_subscriber');
    expectError(await sub.delete('/subscriber/topics/delta'), 404, 'no_subscriber');
  });

  it('shows subscriptions (alias /subscribers) with real sent, queued and oldest figures', async () => {
    const pub = await bed.newClient('figures-pub');
    const sub = await bed.newClient('figures-sub');
    const peer = await bed.newClient('figures-peer');
    await sub.subscribe({
      topics: ['figures'],
      callback: HTTPS_URL,
      uuid: 'figures-uuid',
      max: 2,
      timeout: 60_000,
    });
    const firstAt = Date.now();
    for (let i = 0; i < 3; i += 1) await pub.publish('figures', 'update', `${HTTPS_URL}${i}`);
    const entry = async (client: RoutemasterClient, path = '/subscriptions') =>
      ((await client.get(path)).json as { subscriber: string }[]).find((e) => e.subscriber === 'figures-sub');
    const queued = await entry(sub);
    expect(queued).toMatchObject({
      subscriber: 'figures-sub',
      uuid: 'figures-uuid',
      callback: HTTPS_URL,
      max_events: 2,
      timeout: 60_000,
      topics: ['figures'],
      events: { sent: 0, queued: 3 },
      paused: false,
      ordered: false,
      signed: false,
    });
    const oldest = (queued as unknown as { events: { oldest: number } }).events.oldest;
    expect(oldest).toBeGreaterThanOrEqual(firstAt - 1);
    expect(oldest).toBeLessThanOrEqual(Date.now());

    const [batch] = await bed.takeAll();
    expect(batch?.events).toHaveLength(2);
    expect(await bed.stores.batches.ack('api-test', batch?.id ?? '')).toBe(true);
    expect(await entry(bed.root, '/subscribers')).toMatchObject({
      uuid: 'figures-uuid',
      events: { sent: 2, queued: 1 },
    });
    // The uuid is the subscriber's delivery credential: other clients do not see it.
    expect(await entry(peer)).toMatchObject({ uuid: null, events: { sent: 2, queued: 1 } });
  });

  /** The subscribers' names. */
  async function subscriberNames(): Promise<string[]> {
    return (await bed.stores.subscribers.listSubscribers()).map((subscriber) => subscriber.name);
  }
});
