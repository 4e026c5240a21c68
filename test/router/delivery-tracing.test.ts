/**
 * Each webhook delivery is a CLIENT span `router deliver`, and its context
 * goes to the subscriber as `traceparent`: a subscriber that traces can hang
 * its handling under it. Each store call of the ingest is a span `router ingest`. Real https receiver on 127.0.0.1, the SDK's
 * in-memory exporter.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/router/delivery/webhook-sender.js';
import { IngestCoalescer } from '../../src/router/ingest-coalescer.js';
import { testCertificate } from '../helpers/tls.js';
import { traceBed } from '../helpers/tracing.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const tracing = traceBed();
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
});

async function receiverAnswering(status: number): Promise<WebhookReceiver> {
  const receiver = await startReceiver(() => status);
  opened.push(receiver);
  return receiver;
}

describe('a webhook delivery', () => {
  it.each([
    [204, SpanStatusCode.UNSET],
    [503, SpanStatusCode.ERROR],
  ])('answered %i is a CLIENT span whose context the subscriber got as traceparent', async (status, code) => {
    const { cert } = await testCertificate();
    const sender = new WebhookSender({ ca: cert, connectTimeoutMs: 2_000, requestTimeoutMs: 5_000 });
    opened.push(sender);
    const receiver = await receiverAnswering(status);
    const outcome = await sender.send(
      { callback: receiver.url, uuid: 'sub-1', signingSecrets: [] },
      `batch-${status}`,
      ['{"n":1}', '{"n":2}'],
    );
    expect(outcome.ok).toBe(status < 300);
    const [span] = tracing.named('router deliver');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'messaging.batch.message_count': 2,
      'commitbus.router.batch_id': `batch-${status}`,
      ...(status < 300 ? { 'http.response.status_code': status } : { 'error.type': `HTTP ${status}` }),
    });
    const context = span?.spanContext();
    expect(receiver.deliveries[0]?.headers.traceparent).toBe(`00-${context?.traceId}-${context?.spanId}-01`);
    expect(span?.status.code).toBe(code);
  });
});

describe('the router ingest', () => {
  it('is an INTERNAL span per store call: its topic and how many events it carried', async () => {
    const coalescer = new IngestCoalescer({ ingest: async () => ({ ok: true }) as never }, Date.now, 3);
    await Promise.all([1, 2, 3, 4].map((i) => coalescer.ingest('me', 'orders', `{"i":${i}}`)));
    const spans = tracing.named('router ingest');
    expect(spans.map((span) => span.attributes['messaging.batch.message_count'])).toEqual([3, 1]);
    expect(spans.every((span) => span.kind === SpanKind.INTERNAL)).toBe(true);
    expect(spans[0]?.attributes['messaging.destination.name']).toBe('orders');
  });
});
