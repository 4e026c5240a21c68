import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchStore } from '../../src/router/batch-store.js';
import { WebhookSender } from '../../src/router/delivery/webhook-sender.js';
import { RouterMetrics } from '../../src/router/router-metrics.js';
import { RouterUpkeep } from '../../src/router/upkeep/router-upkeep.js';
import { upkeepSettings } from '../../src/router/upkeep/upkeep-settings.js';
import { childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { CONNECT_MS, numbers, REQUEST_MS, redisRig, startTestRouter } from '../helpers/delivery-rig.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { REDIS_URL, testPrefix } from '../helpers/redis.js';
import { publish, type RouterRig, routerEvent, subscribe, subscriberRecord } from '../helpers/router-rig.js';
import { testCertificate } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait-for.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PREFIX = testPrefix('router-delivery-edges');
const redisRigHere = () => redisRig(PREFIX);

/** Bytes one queued event counts for in {@link countedBytes}. */
const EVENT_BYTES = 1_000;

/**
 * `rig` on Redis with its batch store's `memoryUsed` counting the events
 * queued for `subscriber` ({@link EVENT_BYTES} each): Redis reports the
 * whole server's memory, which the other test files sharing it move, so the
 * upkeep's marks are checked here on figures only these batches make.
 */
function countedBytes(rig: RouterRig, subscriber: string): RouterRig {
  const batches = rig.batches;
  const counted: BatchStore = Object.create(batches, {
    memoryUsed: {
      value: async () => ((await batches.stats())[subscriber]?.queued ?? 0) * EVENT_BYTES,
    },
  });
  return { ...rig, kind: rig.kind, batches: counted, close: () => rig.close() };
}

describe('router autodrop on Redis, its marks on counted bytes (exact byte figures)', () => {
  let rig: RouterRig;
  let router: Awaited<ReturnType<typeof startTestRouter>> | undefined;
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await router?.close();
    router = undefined;
    for (const r of receivers.splice(0)) await r.close();
    await rig?.close();
  });
  async function receiver(): Promise<WebhookReceiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  it('autodrop: over the high mark, the oldest batches go until under the low mark, counted and logged', async () => {
    rig = countedBytes(await redisRigHere(), 'shop');
    const sub = await receiver();
    await subscribe(rig, subscriberRecord('shop', sub.url, { maxEvents: 1, paused: true }));
    for (let n = 10; n < 20; n++) await publish(rig, 'orders', n, n);
    const used = await rig.batches.memoryUsed();
    expect(used).toBe(10 * EVENT_BYTES);
    const logger = recordingLogger();
    const metrics = new RouterMetrics();
    const upkeep = (high: number, low: number) =>
      new RouterUpkeep({
        batches: rig.batches,
        settings: upkeepSettings({ autodropHighBytes: high, autodropLowBytes: low, autodropBatchSize: 1 }),
        metrics,
        logger,
      });
    expect(await upkeep(used + 1, used).autodrop()).toMatchObject({ batches: 0 });
    expect(logger.lines).toEqual([]);
    // Ten batches of one size: down to five and a half leaves five.
    const result = await upkeep(used - 1, Math.floor(used * 0.55)).autodrop();
    expect(result).toMatchObject({ batches: 5, eventsBySubscriber: { shop: 5 }, bytesBefore: used });
    expect(result.bytesAfter).toBeLessThanOrEqual(used * 0.55);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({
      level: 'error',
      fields: { batches: 5, eventsBySubscriber: { shop: 5 } },
    });
    expect(await metrics.metrics()).toContain('commitbus_router_events_dropped_total{subscriber="shop"} 5');
    await rig.subscribers.setPaused('shop', false);
    router = await startTestRouter(rig);
    await waitFor('the rest delivered', () => sub.delivered().length === 5);
    expect(numbers(sub.delivered()).sort()).toEqual([15, 16, 17, 18, 19]);
  });
});

describe('router delivery across processes', () => {
  const children = childWorkers();

  it('a delivery worker SIGKILLed mid-batch: its batch comes back after the lease and is delivered once', async () => {
    const rig = await redisRigHere();
    const { cert } = await testCertificate();
    const sub = await startReceiver(() => 'hang');
    let router: Awaited<ReturnType<typeof startTestRouter>> | undefined;
    try {
      await subscribe(rig, subscriberRecord('shop', sub.url, { maxEvents: 3 }));
      const child = spawnWorker(
        { REDIS_URL, ROUTER_PREFIX: PREFIX, CA_PEM: cert },
        fileURLToPath(new URL('../fixtures/delivery-worker-process.ts', import.meta.url)),
      );
      children.push(child);
      await child.ready;
      await publish(rig, 'orders', 1, 3);
      await waitFor('the child mid-delivery', () => sub.deliveries.length === 1);
      child.process.kill('SIGKILL');
      expect(await child.exited).toMatchObject({ signal: 'SIGKILL' });
      sub.behave(() => 204);
      router = await startTestRouter(rig);
      await waitFor('the recovered batch delivered', () => sub.delivered().length === 3, {
        timeoutMs: 10_000,
      });
      expect(numbers(sub.delivered())).toEqual([1, 2, 3]);
      expect(sub.deliveries).toHaveLength(2);
      // The lease (1.5 s) kept it from others until it ran out.
      expect((sub.deliveries[1]?.at ?? 0) - (sub.deliveries[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_400);
      await waitFor('acked', async () => (await rig.batches.stats()).shop?.queued === 0);
    } finally {
      await router?.close();
      await sub.close();
      await rig.close();
    }
  });

  it('autodrop on Redis: over the high mark, every batch not being delivered goes, counted; a pending one stays', async () => {
    const rig = await redisRigHere();
    try {
      await subscribe(
        rig,
        subscriberRecord('shop', 'https://127.0.0.1:1/never', { maxEvents: 1, paused: true }),
      );
      await subscribe(
        rig,
        subscriberRecord('busy', 'https://127.0.0.1:1/never', { maxEvents: 1, topics: ['audit'] }),
      );
      for (let n = 10; n < 20; n++) await publish(rig, 'orders', n, n);
      await publish(rig, 'audit', 1, 1);
      const held = await rig.batches.take({
        worker: 'w',
        limit: 5,
        now: Date.now(),
        leaseMs: 60_000,
        maxInFlightPerSubscriber: 1,
      });
      expect(held.map((b) => b.subscriber)).toEqual(['busy']);
      // Redis's used_memory is the whole server's, which the files running beside this one move up and down:
      // marks far below it hold whatever they do.
      expect(await rig.batches.memoryUsed()).toBeGreaterThan(2);
      const logger = recordingLogger();
      const metrics = new RouterMetrics();
      const result = await new RouterUpkeep({
        batches: rig.batches,
        settings: upkeepSettings({ autodropHighBytes: 2, autodropLowBytes: 1, autodropBatchSize: 3 }),
        metrics,
        logger,
      }).autodrop();
      expect(result).toMatchObject({ batches: 10, eventsBySubscriber: { shop: 10 } });
      expect(logger.lines.filter((l) => l.level === 'error')).toHaveLength(1);
      expect(await metrics.metrics()).toContain(
        'commitbus_router_events_dropped_total{subscriber="shop"} 10',
      );
      const stats = await rig.batches.stats();
      expect(stats.shop?.queued ?? 0).toBe(0);
      expect(stats.busy).toMatchObject({ queued: 1, batches: 1 });
      expect(await rig.batches.ack('w', held[0]?.id ?? '')).toBe(true);
    } finally {
      await rig.close();
    }
  });
});

describe('WebhookSender', () => {
  it('checks certificates unless told not to, and describes failures without the credentials', async () => {
    const sub = await startReceiver();
    const strict = new WebhookSender({ connectTimeoutMs: CONNECT_MS, requestTimeoutMs: REQUEST_MS });
    const lax = new WebhookSender({
      verifyTls: false,
      connectTimeoutMs: CONNECT_MS,
      requestTimeoutMs: REQUEST_MS,
    });
    const target = { callback: sub.url, uuid: 'secret-uuid', signingSecrets: [] };
    try {
      const refused = await strict.send(target, 'b1', [routerEvent('orders', 1)]);
      expect(refused).toMatchObject({ ok: false });
      expect(JSON.stringify(refused)).toMatch(/CERT|SELF_SIGNED/);
      expect(sub.deliveries).toEqual([]);
      expect(await lax.send(target, 'b1', [routerEvent('orders', 1)])).toEqual({ ok: true, status: 204 });
      const closed = await lax.send({ ...target, callback: 'https://127.0.0.1:1/events' }, 'b2', []);
      expect(closed).toEqual({ ok: false, error: 'ECONNREFUSED' });
      expect(JSON.stringify([refused, closed])).not.toContain('secret-uuid');
    } finally {
      await strict.close();
      await lax.close();
      await sub.close();
    }
  });
});

describe('a subscriber that gave no uuid', () => {
  it.each([['redis', redisRigHere]])(
    'gets its deliveries without credentials (%s)',
    async (_kind, makeRig) => {
      const rig = await makeRig();
      const sub = await startReceiver();
      let router: Awaited<ReturnType<typeof startTestRouter>> | undefined;
      try {
        await subscribe(rig, subscriberRecord('anonymous', sub.url, { uuid: null, maxEvents: 2 }));
        expect((await rig.subscribers.getSubscriber('anonymous'))?.uuid).toBeNull();
        router = await startTestRouter(rig);
        await publish(rig, 'orders', 1, 2);
        await waitFor('the delivery', () => sub.deliveries.length === 1);
        expect(numbers(JSON.parse(sub.deliveries[0]?.body ?? '[]'))).toEqual([1, 2]);
        expect(sub.deliveries[0]?.headers.authorization).toBeUndefined();
      } finally {
        await router?.close();
        await sub.close();
        await rig.close();
      }
    },
  );
});

describe('a batch whose deliveries kill their workers', () => {
  it.each([['redis', redisRigHere]])(
    'is given up as crashed once its lease ran out maxAttempts times, never sent again (%s)',
    async (_kind, makeRig) => {
      const rig = await makeRig();
      const sub = await startReceiver();
      let router: Awaited<ReturnType<typeof startTestRouter>> | undefined;
      try {
        await subscribe(rig, subscriberRecord('shop', sub.url, { maxEvents: 2 }));
        await publish(rig, 'orders', 1, 2);
        // Two workers take it and die: nobody settles it, the lease ends, it comes back each time.
        let now = Date.now();
        for (let death = 1; death <= 2; death++) {
          const taken = await rig.batches.take({
            worker: `dead-${death}`,
            limit: 1,
            now,
            leaseMs: 10,
            maxInFlightPerSubscriber: 1,
          });
          expect(taken.map((b) => b.attempts)).toEqual([death - 1]);
          now += 20;
          expect(await rig.batches.recoverExpired(now, now)).toBe(1);
        }
        router = await startTestRouter(rig, { maxAttempts: 2 });
        await waitFor('the dead letter', async () => (await rig.deadLetters.list()).length === 1);
        const [letter] = await rig.deadLetters.list();
        expect(letter).toMatchObject({ kind: 'webhook', reason: 'crashed' });
        expect(letter?.error).toContain('attempts were used up');
        expect(sub.deliveries).toEqual([]);
        expect((await rig.batches.stats()).shop).toMatchObject({ queued: 0, batches: 0 });
      } finally {
        await router?.close();
        await sub.close();
        await rig.close();
      }
    },
  );
});
