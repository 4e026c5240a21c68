/**
 * The event store's cycle is traced: each batch the writer handles is an
 * INTERNAL root span `event-store cycle` saying from which version to which
 * and how many it handled; a batch whose event fails says so (status ERROR,
 * the version that failed). The SDK's in-memory exporter.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { items } from '../fixtures/es-items.js';
import { describeOnBothDatabases } from '../helpers/event-store-bed.js';
import { traceBed } from '../helpers/tracing.js';
import { waitFor } from '../helpers/wait-for.js';

const tracing = traceBed();

describeOnBothDatabases('event store cycle spans', (bed) => {
  it('a handled batch: from, to, how many; a failed event: ERROR and its version', async () => {
    const store = await bed.start({ models: [items] });
    await store.dispatch('ITEM.RESULT', { ins: [{ id: 'a', name: 'A', qty: 1 }] });
    await waitFor('a cycle span', () => tracing.named('event-store cycle').length > 0);
    const handled = tracing
      .named('event-store cycle')
      .find((span) => span.attributes['commitbus.event_store.version'] === 1);
    expect(handled?.kind).toBe(SpanKind.INTERNAL);
    expect(handled?.attributes).toMatchObject({
      'messaging.system': 'commitbus',
      'commitbus.event_store.from_version': 1,
      'messaging.batch.message_count': 1,
    });
    expect(handled?.status.code).toBe(SpanStatusCode.UNSET);
    await store.dispatch('ITEM.RESULT', { ins: 'not rows' }).catch(() => undefined);
    await waitFor('a failed cycle span', () =>
      tracing.named('event-store cycle').some((span) => span.status.code === SpanStatusCode.ERROR),
    );
    const failed = tracing
      .named('event-store cycle')
      .find((span) => span.status.code === SpanStatusCode.ERROR);
    expect(failed?.attributes['commitbus.event_store.failed_version']).toBe(2);
  });
});
