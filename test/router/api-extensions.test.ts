/**
 * The router API's extensions of Routemaster's, over HTTPS on 127.0.0.1:
 * pause and resume, signing secrets (checked with the `standardwebhooks`
 * library), and its operations side: /pulse, /metrics, the request hook, and
 * that no token or root key ever reaches a log.
 */
import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { describeRouterApi, expectError, HTTPS_URL, ROOT_KEY } from '../helpers/router-api-bed.js';

describeRouterApi('router-api-ext', 'router API extensions on $name stores', (bed) => {
  it('pauses and resumes a subscriber; a resubscription keeps both and the secrets', async () => {
    const pub = await bed.newClient('pause-pub');
    const sub = await bed.newClient('pause-sub');
    const body = { topics: ['paused_topic'], callback: HTTPS_URL, uuid: 'p', max: 1 };
    expectError(await sub.post('/subscriber/pause'), 404, 'no_subscriber');
    await sub.subscribe(body);
    expect((await sub.post('/subscriber/pause')).status).toBe(204);
    expect((await sub.post('/subscriber/signing_secret')).status).toBe(201);
    await sub.subscribe(body);
    expect(await bed.stores.subscribers.getSubscriber('pause-sub')).toMatchObject({ paused: true });
    expect((await bed.stores.subscribers.getSubscriber('pause-sub'))?.signingSecrets).toHaveLength(1);
    await pub.publish('paused_topic', 'create', HTTPS_URL);
    expect(await bed.takeAll()).toEqual([]);
    expect((await sub.post('/subscriber/resume', '')).status).toBe(204);
    const batches = await bed.takeAll();
    expect(batches.map((batch) => batch.subscriber)).toEqual(['pause-sub']);
  });

  it('rotates signing secrets: new first, at most two, previous retired on request', async () => {
    const sub = await bed.newClient('signed-sub');
    expectError(await sub.post('/subscriber/signing_secret'), 404, 'no_subscriber');
    await sub.subscribe({ topics: ['signed'], callback: HTTPS_URL, uuid: 's' });
    const secrets: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const answer = await sub.post('/subscriber/signing_secret');
      expect(answer.status).toBe(201);
      const { secret } = answer.json as { secret: string };
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      secrets.unshift(secret);
    }
    const secretsNow = async () => (await bed.stores.subscribers.getSubscriber('signed-sub'))?.signingSecrets;
    expect(await secretsNow()).toEqual(secrets.slice(0, 2));
    // A receiver's library takes the secret as it is.
    const webhook = new Webhook(secrets[0] ?? '');
    const signature = webhook.sign('msg_1', new Date(), '[]');
    expect(
      webhook.verify('[]', {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': signature,
      }),
    ).toEqual([]);
    expect((await sub.delete('/subscriber/signing_secret/previous')).status).toBe(204);
    expect(await secretsNow()).toEqual(secrets.slice(0, 1));
    expectError(await sub.delete('/subscriber/signing_secret/previous'), 404, 'no_previous_secret');
    expect((await sub.delete('/subscriber/signing_secret')).status).toBe(204);
    expect(await secretsNow()).toEqual([]);
  });

  it('a resubscription overlapping a pause and a rotation undoes neither', async () => {
    const sub = await bed.newClient('race-sub');
    const body = { topics: ['raced'], callback: HTTPS_URL, uuid: 'r' };
    await sub.subscribe(body);
    // The resubscription's write waits while a pause and a rotation run whole.
    const held = bed.holdNextSubscriberWrite();
    const resubscribing = sub.subscribe({ ...body, callback: `${HTTPS_URL}/v2`, max: 5 });
    await held.reached;
    expect((await sub.post('/subscriber/pause')).status).toBe(204);
    const rotated = await sub.post('/subscriber/signing_secret');
    expect(rotated.status).toBe(201);
    held.release();
    expect((await resubscribing).status).toBe(204);
    expect(await bed.stores.subscribers.getSubscriber('race-sub')).toMatchObject({
      callback: `${HTTPS_URL}/v2`,
      maxEvents: 5,
      paused: true,
      signingSecrets: [(rotated.json as { secret: string }).secret],
    });
  });

  it('overlapping rotations keep both secrets, so a receiver given either can verify', async () => {
    const sub = await bed.newClient('race-rotate');
    await sub.subscribe({ topics: ['rotated'], callback: HTTPS_URL, uuid: 'r' });
    const secretOf = (answer: { status: number; json?: unknown }) => {
      expect(answer.status).toBe(201);
      return (answer.json as { secret: string }).secret;
    };
    const held = bed.holdNextSubscriberWrite();
    const first = sub.post('/subscriber/signing_secret');
    await held.reached;
    const second = secretOf(await sub.post('/subscriber/signing_secret'));
    held.release();
    const firstSecret = secretOf(await first);
    // The held one landed last: it is the newest.
    expect((await bed.stores.subscribers.getSubscriber('race-rotate'))?.signingSecrets).toEqual([
      firstSecret,
      second,
    ]);
  });

  it('answers /pulse with 204 while the stores answer and 500 when not; serves /metrics', async () => {
    const client = await bed.newClient('pulse');
    expect((await client.get('/pulse')).status).toBe(204);
    expect((await bed.root.get('/pulse')).status).toBe(204);
    expectError(await bed.anonymous.get('/pulse'), 401, 'unauthorized');
    bed.setStoresUp(false);
    try {
      expectError(await client.get('/pulse'), 500, 'no_pulse');
    } finally {
      bed.setStoresUp(true);
    }
    const metrics = await bed.anonymous.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('# TYPE router_events_published_total counter');
    expectError(await bed.anonymous.get('/no/such/endpoint'), 404, 'not_found');
  });

  it('never logs nor reports a token or the root key; metrics see route patterns only', async () => {
    const client = await bed.newClient('secretive');
    const token = client.token ?? '';
    expect(token).toMatch(/^secretive--[0-9a-f]{32}$/);
    await client.get('/pulse');
    bed.setStoresUp(false);
    try {
      expectError(await client.get('/pulse'), 500, 'no_pulse');
    } finally {
      bed.setStoresUp(true);
    }
    expectError(await client.post('/topics/leaky', `{"url": "${token}`), 400, 'bad_json');
    expectError(await client.as(`${token}x`).get('/topics'), 401, 'unauthorized');
    expect((await bed.root.delete(`/api_tokens/${token}`)).status).toBe(204);
    expectError(await client.get('/topics'), 401, 'unauthorized');

    expect(bed.logger.json().some((line) => line.includes('stores are down'))).toBe(true);
    const everything = JSON.stringify({ logged: bed.logger.json(), answered: bed.answered });
    expect(everything).not.toContain(ROOT_KEY);
    expect(everything).not.toContain(token.slice('secretive--'.length));
    expect(bed.answered).toContainEqual({
      method: 'DELETE',
      route: '/api_tokens/:token',
      status: 204,
      durationMs: expect.any(Number),
    });
  });
});
