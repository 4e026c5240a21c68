import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetters } from '../../src/dead-letters/dead-letters.js';
import { deliverySettings } from '../../src/router/delivery/delivery-settings.js';
import { DeliveryWorker } from '../../src/router/delivery/delivery-worker.js';
import { registerWebhookKind } from '../../src/router/delivery/webhook-dead-letter.js';
import { WebhookSender } from '../../src/router/delivery/webhook-sender.js';
import { RouterMetrics } from '../../src/router/router-metrics.js';
import { CONNECT_MS, numbers, REQUEST_MS, rigs, startTestRouter } from '../helpers/delivery-rig.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { testPrefix } from '../helpers/redis.js';
import { publish, type RouterRig, routerEvent, subscribe, subscriberRecord } from '../helpers/router-rig.js';
import { testCertificate } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait-for.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PREFIX = testPrefix('router-delivery');
const RIGS = rigs(PREFIX);

describe.each(RIGS)('router delivery on %s stores', (_kind, makeRig) => {
  let rig: RouterRig;
  let router: Awaited<ReturnType<typeof startTestRouter>> | undefined;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    await testCertificate();
  });
  afterEach(async () => {
    await router?.close();
    router = undefined;
    for (const r of receivers.splice(0)) await r.close();
    await rig?.close();
  });
  afterAll(async () => {});

  async function receiver(...args: Parameters<typeof startReceiver>): Promise<WebhookReceiver> {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  }

  it('batches by max: full batches go at once, the rest waits for its deadline', async () => {
    rig = await makeRig();
    const sub = await receiver();
    await subscribe(rig, subscriberRecord('shop', sub.url, { maxEvents: 3, timeoutMs: 60_000 }));
    router = await startTestRouter(rig);
    await publish(rig, 'orders', 1, 7);
    await waitFor('two full batches', () => sub.deliveries.length === 2);
    expect(sub.deliveries.map((d) => numbers(JSON.parse(d.body)))).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    const [first] = sub.deliveries;
    expect(first?.headers['content-type']).toBe('application/json');
    expect(first?.headers.authorization).toBe(`Basic ${Buffer.from('uuid-of-shop:x').toString('base64')}`);
    expect(JSON.parse(first?.body ?? '')[0]).toEqual(JSON.parse(routerEvent('orders', 1)));
    expect(first?.headers['webhook-signature']).toBeUndefined();
    await waitFor('both acked', async () => (await rig.batches.stats()).shop?.sent === 6);
    expect((await rig.batches.stats()).shop).toMatchObject({ queued: 1, sent: 6, batches: 1 });
  });

  it('batches by timeout: events wait for the deadline of the first, then go as one batch', async () => {
    rig = await makeRig();
    const sub = await receiver();
    await subscribe(rig, subscriberRecord('shop', sub.url, { maxEvents: 100, timeoutMs: 150 }));
    router = await startTestRouter(rig);
    const started = Date.now();
    await publish(rig, 'orders', 1, 2);
    await publish(rig, 'orders', 3, 3);
    await waitFor('the batch', () => sub.deliveries.length === 1);
    expect((sub.deliveries[0]?.at ?? 0) - started).toBeGreaterThanOrEqual(140);
    expect(numbers(sub.delivered())).toEqual([1, 2, 3]);
  });

  it('a failing subscriber gets its batch again with a growing backoff, once 2xx nothing twice', async () => {
    rig = await makeRig();
    const sub = await receiver((n) => (n < 3 ? 500 : 204));
    const other = await receiver();
    await subscribe(rig, subscriberRecord('shop', sub.url, { maxEvents: 5 }));
    await subscribe(rig, subscriberRecord('audit', other.url, { topics: ['audit'] }));
    router = await startTestRouter(rig, { floorMs: 60 });
    await publish(rig, 'orders', 1, 5);
    await waitFor('the first failure', () => sub.deliveries.length === 1);
    await waitFor("the failure kept as the subscriber's last error", async () => {
      return (await rig.batches.stats()).shop?.lastError?.message === 'HTTP 500';
    });
    await waitFor('the batch delivered', () => sub.delivered().length === 5);
    expect(sub.deliveries.map((d) => d.status)).toEqual([500, 500, 500, 204]);
    // Each attempt in the subscriber's log, newest first, with its status and error.
    await waitFor('four attempts logged', async () => (await rig.attempts.recent('shop')).length === 4);
    const logged = await rig.attempts.recent('shop');
    expect(logged.map((a) => [a.ok, a.status, a.error, a.events])).toEqual([
      [true, 204, null, 5],
      [false, 500, 'HTTP 500', 5],
      [false, 500, 'HTTP 500', 5],
      [false, 500, 'HTTP 500', 5],
    ]);
    expect(logged.every((a) => a.durationMs >= 0 && a.at >= (sub.deliveries[0]?.at ?? 0) - 1_000)).toBe(true);
    const gaps = sub.deliveries.slice(1).map((d, i) => d.at - (sub.deliveries[i]?.at ?? 0));
    // floorMs * 2^(attempts-1), times 1..1.5.
    expect(gaps[0]).toBeGreaterThanOrEqual(55);
    expect(gaps[1]).toBeGreaterThanOrEqual(115);
    expect(gaps[2]).toBeGreaterThanOrEqual(235);
    // A later event goes through the same worker: once it is in, the first batch was not sent again.
    await publish(rig, 'orders', 6, 10);
    await waitFor('the next batch', () => sub.delivered().length === 10);
    expect(numbers(sub.delivered())).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(sub.deliveries).toHaveLength(5);
    // Delivered since: the last error is gone (the router records the send once the response is in).
    await waitFor(
      'the second batch recorded as sent',
      async () => (await rig.batches.stats()).shop?.sent === 10,
    );
    expect((await rig.batches.stats()).shop).toMatchObject({ queued: 0, sent: 10, lastError: null });
    const metrics = await router.metrics.metrics();
    expect(metrics).toContain('commitbus_router_deliveries_failed_total{subscriber="shop"} 3');
    expect(metrics).toContain('commitbus_router_events_delivered_total{subscriber="shop"} 10');
    expect(metrics).toContain('commitbus_router_queue_events{subscriber="shop"} 0');
  });

  it('a hanging subscriber hits the request timeout without slowing a healthy one', async () => {
    rig = await makeRig();
    const hanging = await receiver((n) => (n === 0 ? 'hang' : 204));
    const healthy = await receiver();
    await subscribe(rig, subscriberRecord('slow', hanging.url));
    await subscribe(rig, subscriberRecord('fast', healthy.url));
    router = await startTestRouter(rig);
    await publish(rig, 'orders', 1, 1);
    const published = Date.now();
    await waitFor('the healthy delivery', () => healthy.deliveries.length === 1);
    expect((healthy.deliveries[0]?.at ?? 0) - published).toBeLessThan(REQUEST_MS);
    await publish(rig, 'orders', 2, 2);
    await waitFor('the second healthy delivery', () => healthy.deliveries.length === 2);
    expect(numbers(hanging.delivered())).not.toContain(1);
    await waitFor('the hanging subscriber served on retry', () => hanging.delivered().length === 2);
    const hung = hanging.deliveries[0];
    const retried = hanging.deliveries.find(
      (d) => d.status === 204 && numbers(JSON.parse(d.body)).includes(1),
    );
    expect(numbers(JSON.parse(hung?.body ?? '[]'))).toEqual([1]);
    expect((retried?.at ?? 0) - (hung?.at ?? 0)).toBeGreaterThanOrEqual(REQUEST_MS);
    expect(await router.metrics.metrics()).toContain(
      'commitbus_router_deliveries_failed_total{subscriber="slow"} 1',
    );
    expect(numbers(healthy.delivered())).toEqual([1, 2]);
  });

  it('signs deliveries in the Standard Webhooks form, every secret of a rotation verifying', async () => {
    rig = await makeRig();
    const secrets = [
      `whsec_${randomBytes(24).toString('base64')}`,
      `whsec_${randomBytes(24).toString('base64')}`,
    ];
    const sub = await receiver();
    await subscribe(rig, subscriberRecord('shop', sub.url, { signingSecrets: secrets }));
    router = await startTestRouter(rig);
    await publish(rig, 'orders', 1, 2);
    await waitFor('the signed batch', () => sub.deliveries.length === 1);
    const { body, headers } = sub.deliveries[0] ?? { body: '', headers: {} as Record<string, string> };
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of secrets) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    const stranger = `whsec_${randomBytes(24).toString('base64')}`;
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
    expect(() => new Webhook(secrets[0] ?? '').verify(`${body} `, headers)).toThrow();
  });

  it('an ordered subscriber gets one batch at a time, in order, across failures', async () => {
    rig = await makeRig();
    const sub = await receiver((n) => (n === 1 || n === 2 ? 503 : 204), { answerAfterMs: 20 });
    await subscribe(rig, subscriberRecord('ledger', sub.url, { maxEvents: 1, ordered: true }));
    router = await startTestRouter(rig, { maxInFlightPerSubscriber: 8 });
    for (let n = 1; n <= 6; n++) await publish(rig, 'orders', n, n);
    await waitFor('six events delivered', () => sub.delivered().length === 6);
    expect(numbers(sub.delivered())).toEqual([1, 2, 3, 4, 5, 6]);
    // Every request carried the oldest event not yet delivered: 2 was tried three times before 3 went.
    expect(sub.deliveries.map((d) => numbers(JSON.parse(d.body))[0])).toEqual([1, 2, 2, 2, 3, 4, 5, 6]);
    // One batch at a time: no request arrived while another was unanswered.
    expect(sub.peakInFlight()).toBe(1);
  });

  it('a paused subscriber keeps its events until resumed', async () => {
    rig = await makeRig();
    const paused = await receiver();
    const live = await receiver();
    await subscribe(rig, subscriberRecord('paused', paused.url, { paused: true }));
    await subscribe(rig, subscriberRecord('live', live.url));
    router = await startTestRouter(rig);
    await publish(rig, 'orders', 1, 3);
    await waitFor('the live subscriber served', () => live.delivered().length === 3);
    await publish(rig, 'orders', 4, 4);
    await waitFor('the live subscriber served again', () => live.delivered().length === 4);
    expect(paused.deliveries).toEqual([]);
    expect((await rig.batches.stats()).paused).toMatchObject({ queued: 4 });
    await rig.subscribers.setPaused('paused', false);
    await waitFor('the resumed subscriber served', () => paused.delivered().length === 4);
    expect(numbers(paused.delivered())).toEqual([1, 2, 3, 4]);
  });

  it('a batch whose worker stopped answering comes back after its lease', async () => {
    rig = await makeRig();
    const sub = await receiver();
    await subscribe(rig, subscriberRecord('shop', sub.url));
    await publish(rig, 'orders', 1, 2);
    const lost = await rig.batches.take({
      worker: 'gone',
      limit: 10,
      now: Date.now(),
      leaseMs: 300,
      maxInFlightPerSubscriber: 4,
    });
    expect(lost).toHaveLength(1);
    const started = Date.now();
    router = await startTestRouter(rig);
    await waitFor('the recovered batch', () => sub.delivered().length === 2);
    expect((sub.deliveries[0]?.at ?? 0) - started).toBeGreaterThanOrEqual(250);
    expect(numbers(sub.delivered())).toEqual([1, 2]);
    expect(await rig.batches.ack('gone', lost[0]?.id ?? '')).toBe(false);
  });

  it('gives a batch up as a dead letter after maxAttempts, and re-drives it', async () => {
    rig = await makeRig();
    const logger = recordingLogger();
    const sub = await receiver(() => 500);
    await subscribe(rig, subscriberRecord('shop', sub.url, { maxEvents: 3 }));
    router = await startTestRouter(rig, { maxAttempts: 3, floorMs: 10, logger });
    await publish(rig, 'orders', 1, 3);
    await waitFor(
      'a dead letter',
      async () => (await rig.deadLetters.list({ kind: 'webhook' })).length === 1,
    );
    const [letter] = await rig.deadLetters.list({ kind: 'webhook' });
    expect(sub.deliveries).toHaveLength(3);
    expect(letter).toMatchObject({ kind: 'webhook', reason: 'exhausted', error: 'HTTP 500' });
    expect(letter?.id).toMatch(/^webhook\./);
    expect(letter?.attempts.map((a) => a.attempt)).toEqual([2, 3]);
    const payload = JSON.parse(letter?.payload ?? '{}');
    expect(payload).toMatchObject({ subscriber: 'shop', attempts: 3 });
    expect(numbers(payload.events)).toEqual([1, 2, 3]);
    expect(JSON.stringify(letter)).not.toContain('uuid-of-shop');
    expect((await rig.batches.stats()).shop).toMatchObject({ queued: 0, batches: 0 });
    expect(logger.lines.some((l) => l.level === 'warn' && l.message.includes(letter?.id ?? '?'))).toBe(true);
    expect(await router.metrics.metrics()).toContain(
      'commitbus_router_events_dead_lettered_total{subscriber="shop"} 3',
    );

    sub.behave(() => 204);
    const letters = new DeadLetters({ store: rig.deadLetters, logger });
    registerWebhookKind(letters.kinds, () => rig.batches);
    expect(await letters.redrive('all')).toBe(1);
    await waitFor('the re-driven batch', () => sub.delivered().length === 3);
    expect(numbers(sub.delivered())).toEqual([1, 2, 3]);
    expect(await rig.deadLetters.list()).toEqual([]);
  });

  it('dead-letters a batch older than maxAgeMs, and a bus without a router keeps the letter', async () => {
    rig = await makeRig();
    const sub = await receiver(() => 502);
    await subscribe(rig, subscriberRecord('shop', sub.url));
    const { cert } = await testCertificate();
    const sender = new WebhookSender({
      ca: cert,
      connectTimeoutMs: CONNECT_MS,
      requestTimeoutMs: REQUEST_MS,
    });
    const worker = new DeliveryWorker({
      batches: rig.batches,
      subscribers: rig.subscribers,
      deadLetters: rig.deadLetters,
      sender,
      settings: deliverySettings({ maxAgeMs: 1, leaseMs: 1_000, idleWaitMs: 50 }, CONNECT_MS + REQUEST_MS),
      // A clock a second ahead: every batch is past maxAgeMs when taken.
      now: () => Date.now() + 1_000,
    }).start();
    router = {
      worker,
      metrics: new RouterMetrics(),
      close: async () => {
        await worker.close();
        await sender.close();
      },
    };
    await publish(rig, 'orders', 1, 1);
    await waitFor('a dead letter', async () => (await rig.deadLetters.list()).length === 1);
    // Older than maxAgeMs when a worker takes it: given up without another try.
    expect((await rig.deadLetters.list())[0]).toMatchObject({ reason: 'expired' });
    expect((await rig.deadLetters.list())[0]?.error).toContain('older than maxAgeMs');
    expect(sub.deliveries).toEqual([]);
    const letters = new DeadLetters({ store: rig.deadLetters, logger: recordingLogger() });
    await expect(letters.redrive('all')).rejects.toThrow(/no router to re-drive webhook letters/);
    expect(await rig.deadLetters.list()).toHaveLength(1);
  });
});
