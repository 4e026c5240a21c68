/**
 * A subscriber's change through the API (its uuid, signing secret or
 * callback) applies to the very next delivery: a router on Redis, changes
 * made right after a delivery, the next one checked at the receiver.
 */
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startRouter } from '../../src/bus/start-router.js';
import { silentLogger } from '../../src/index.js';
import { signWebhook } from '../../src/router/delivery/webhook-signature.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { deleteKeys, openRedis, REDIS_URL, testPrefix } from '../helpers/redis.js';
import { RoutemasterClient } from '../helpers/routemaster-client.js';
import { testCertificate } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait-for.js';
import { type ReceivedDelivery, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PREFIX = testPrefix('router-sub-changes');
const ROOT_KEY = 'sub-changes-root-key';
const redis = openRedis();
const agent = new Agent();
afterAll(async () => {
  await agent.close();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

const basic = (uuid: string) => `Basic ${Buffer.from(`${uuid}:x`).toString('base64')}`;

describe('a subscriber changed through the API', () => {
  it('has its new uuid, signing secret and callback used by the next delivery', async () => {
    const { cert } = await testCertificate();
    const first = await startReceiver();
    const second = await startReceiver();
    const router = await startRouter(
      { redis: { url: REDIS_URL, prefix: PREFIX } },
      { port: 0, api: { rootKey: ROOT_KEY }, sender: { ca: cert } },
      { logger: silentLogger, transport: redisTransport() },
    );
    try {
      const root = new RoutemasterClient(router.url as string, ROOT_KEY, agent);
      const shop = root.as(((await root.addToken('shop')).json as { token: string }).token);
      const subscribe = async (uuid: string, receiver: WebhookReceiver) =>
        expect(
          (await shop.subscribe({ topics: ['orders'], callback: receiver.url, uuid, timeout: 0 })).status,
        ).toBe(204);
      let published = 0;
      // Publishes one event and returns the delivery that carried it, at whichever receiver.
      const deliverOne = async (): Promise<ReceivedDelivery> => {
        published++;
        const url = `https://shop.test/orders/${published}`;
        expect((await shop.publish('orders', 'update', url)).status).toBe(200);
        const carrying = () =>
          [...first.deliveries, ...second.deliveries].find((d) => d.status === 204 && d.body.includes(url));
        await waitFor(`order ${published} delivered`, () => carrying() !== undefined);
        return carrying() as ReceivedDelivery;
      };

      await subscribe('uuid-one', first);
      const one = await deliverOne();
      expect(one.headers.authorization).toBe(basic('uuid-one'));
      expect(one.headers['webhook-signature']).toBeUndefined();

      await subscribe('uuid-two', first);
      expect((await deliverOne()).headers.authorization).toBe(basic('uuid-two'));

      const added = await shop.post('/subscriber/signing_secret');
      expect(added.status).toBe(201);
      const { secret } = added.json as { secret: string };
      const signed = await deliverOne();
      const id = signed.headers['webhook-id'] as string;
      const timestamp = Number(signed.headers['webhook-timestamp']);
      expect(signed.headers['webhook-signature']).toBe(
        signWebhook(id, timestamp, signed.body, [secret])['webhook-signature'],
      );

      expect((await shop.delete('/subscriber/signing_secret')).status).toBe(204);
      expect((await deliverOne()).headers['webhook-signature']).toBeUndefined();

      await subscribe('uuid-two', second);
      const moved = await deliverOne();
      expect(second.deliveries).toContain(moved);
      expect(first.deliveries.filter((d) => d.status === 204)).toHaveLength(4);
    } finally {
      await router.close();
      await first.close();
      await second.close();
    }
  });
});
