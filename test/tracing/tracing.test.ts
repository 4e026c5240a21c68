/**
 * OpenTelemetry tracing through the public API, on both transports: the
 * context active at publish or register travels in the envelope, and each
 * handler run is a CONSUMER span under the publisher's span, whichever way
 * the event came (drain, job, retry, delay, ordered lane, outbox relay).
 */
import { readFileSync } from 'node:fs';
import { type SpanContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMMITBUS_TRACER_NAME,
  defineHandler,
  type EventHandlersConfig,
  SendEventOp,
} from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/queue-names.js';
import {
  busConfigs,
  DEAD_PUBLISHER,
  OUTBOX_TEST_EVENTS,
  openSqlite,
  outboxRows,
  recordingBus,
} from '../helpers/outbox.js';
import { Recorder } from '../helpers/recorder.js';
import { RecordCreated, RecordRow, RecordUpdated } from '../helpers/records.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { parentIdOf, traceBed } from '../helpers/tracing.js';
import type { TransportName } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

/** The package's version, the tracer's instrumentation scope version. */
const PACKAGE_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const { prefix: PREFIX, redis, buses } = redisTestBed('i12tracing');
const config = busConfigs(PREFIX);
const tracing = traceBed();
const TRANSPORTS: TransportName[] = ['sqlite', 'redis'];
const app = trace.getTracer('test-app');

let dataSource: DataSource;
beforeAll(async () => {
  dataSource = await openSqlite([RecordRow]);
});
afterAll(() => dataSource.destroy());

/** The one ended span named `name`, waited for. */
async function oneSpan(name: string): Promise<ReadableSpan> {
  await waitFor(`a span ${name}`, () => tracing.named(name).length === 1, {
    describe: () => tracing.spans().map((s) => s.name),
  });
  return tracing.named(name)[0] as ReadableSpan;
}

/** Asserts `span` is commitbus's handler span for `handler`'s `attempt` at `eventId`, under `parent`. */
function expectHandlerSpan(
  span: ReadableSpan,
  expected: { key: string; eventId: string; handler: string; attempt: number; parent: SpanContext },
): void {
  expect(span.instrumentationScope).toMatchObject({ name: COMMITBUS_TRACER_NAME, version: PACKAGE_VERSION });
  expect(span.kind).toBe(SpanKind.CONSUMER);
  expect(span.name).toBe(`process ${expected.key}`);
  expect(span.spanContext().traceId).toBe(expected.parent.traceId);
  expect(parentIdOf(span)).toBe(expected.parent.spanId);
  expect(span.attributes).toMatchObject({
    'messaging.system': 'commitbus',
    'messaging.operation.name': 'process',
    'messaging.operation.type': 'process',
    'messaging.destination.name': expected.key,
    'messaging.consumer.group.name': expected.handler,
    'messaging.message.id': expected.eventId,
    'commitbus.event.id': expected.eventId,
    'commitbus.handling_key': expected.key,
    'commitbus.handler': expected.handler,
    'commitbus.attempt': expected.attempt,
  });
}

describe.each(TRANSPORTS)('tracing on the %s transport', (kind) => {
  it('a handler runs in a CONSUMER span under the publish span, and its own spans nest in it', async () => {
    const active: (string | undefined)[] = [];
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [
          defineHandler('trace.sync', async () => {
            active.push(trace.getActiveSpan()?.spanContext().spanId);
            await app.startActiveSpan('db insert', async (span) => span.end());
          }),
          true,
        ],
        defineHandler('trace.async', async () => {
          active.push(trace.getActiveSpan()?.spanContext().spanId);
        }),
      ],
    };
    const { bus } = await buses.start({ events: OUTBOX_TEST_EVENTS, handlers, ...config(kind) });
    const event = RecordCreated.create({ recid: 'traced' });
    const { span: request } = await tracing.inSpan('POST /records', () => bus.publish(event));
    await bus.whenIdle();

    const publish = await oneSpan('send RECORD.CREATE');
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(publish.spanContext().traceId).toBe(request.traceId);
    expect(parentIdOf(publish)).toBe(request.spanId);
    expect(publish.attributes).toMatchObject({
      'messaging.system': 'commitbus',
      'messaging.operation.name': 'send',
      'messaging.message.id': event.id,
    });
    const [sync, async] = ['trace.sync', 'trace.async'].map((handler) =>
      tracing.named('process RECORD.CREATE').find((s) => s.attributes['commitbus.handler'] === handler),
    ) as [ReadableSpan, ReadableSpan];
    const key = 'RECORD.CREATE';
    expectHandlerSpan(sync, {
      key,
      eventId: event.id,
      handler: 'trace.sync',
      attempt: 1,
      parent: publish.spanContext(),
    });
    expectHandlerSpan(async, {
      key,
      eventId: event.id,
      handler: 'trace.async',
      attempt: 1,
      parent: publish.spanContext(),
    });
    expect(sync.status.code).toBe(SpanStatusCode.UNSET);
    // Each handler saw its own span as the active one; its database span is a child of it.
    expect(active.sort()).toEqual([sync.spanContext().spanId, async.spanContext().spanId].sort());
    expect(parentIdOf(await oneSpan('db insert'))).toBe(sync.spanContext().spanId);
  });

  it('a failing handler and its retry are two spans of the publisher trace: the first with the error', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          handler: rec.handler('trace.flaky', (_event, ctx) => {
            if (ctx.attempt === 1) throw new Error('database is down');
          }),
          sync: true,
          attempts: 2,
        },
      ],
    };
    const { bus } = await buses.start({ events: OUTBOX_TEST_EVENTS, handlers, ...config(kind) });
    const event = RecordCreated.create({ recid: 'retried' });
    await tracing.inSpan('POST /records', () => bus.publish(event));
    await waitFor('the retry', () => rec.count('trace.flaky') === 2);
    await bus.whenIdle();

    const publish = await oneSpan('send RECORD.CREATE');
    await waitFor('two handler spans', () => tracing.named('process RECORD.CREATE').length === 2);
    const [first, second] = tracing
      .named('process RECORD.CREATE')
      .sort(
        (a, b) => Number(a.attributes['commitbus.attempt']) - Number(b.attributes['commitbus.attempt']),
      ) as [ReadableSpan, ReadableSpan];
    const key = 'RECORD.CREATE';
    const expected = { key, eventId: event.id, handler: 'trace.flaky', parent: publish.spanContext() };
    expectHandlerSpan(first, { ...expected, attempt: 1 });
    expectHandlerSpan(second, { ...expected, attempt: 2 });
    expect(first.status).toEqual({ code: SpanStatusCode.ERROR, message: 'database is down' });
    expect(first.attributes['error.type']).toBe('Error');
    expect(second.attributes['error.type']).toBeUndefined();
    expect(first.events.map((e) => [e.name, e.attributes?.['exception.message']])).toEqual([
      ['exception', 'database is down'],
    ]);
    expect(second.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a delayed event and an ordered event keep the trace of their publisher', async () => {
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [[defineHandler('trace.later', () => {}), true]],
    };
    const { bus } = await buses.start({
      events: OUTBOX_TEST_EVENTS,
      handlers,
      ...config(kind, { ordering: 'on' }),
    });
    const delayed = RecordCreated.create({ recid: 'delayed' });
    const ordered = RecordCreated.create({ recid: 'ordered' });
    const { span: request } = await tracing.inSpan('POST /records', async () => {
      await bus.publish(delayed, { delay: 150 });
      await bus.publish(ordered, { orderKey: 'record:ordered' });
    });
    await waitFor('both handled', () => tracing.named('process RECORD.CREATE').length === 2, {
      timeoutMs: 10_000,
    });
    await bus.whenIdle();

    const publishOf = (id: string) =>
      tracing.named('send RECORD.CREATE').find((s) => s.attributes['messaging.message.id'] === id);
    const handlerOf = (id: string) =>
      tracing.named('process RECORD.CREATE').find((s) => s.attributes['messaging.message.id'] === id);
    for (const event of [delayed, ordered]) {
      const publish = publishOf(event.id) as ReadableSpan;
      expect(parentIdOf(publish)).toBe(request.spanId);
      expectHandlerSpan(handlerOf(event.id) as ReadableSpan, {
        key: 'RECORD.CREATE',
        eventId: event.id,
        handler: 'trace.later',
        attempt: 1,
        parent: publish.spanContext(),
      });
    }
    expect(handlerOf(ordered.id)?.attributes['commitbus.order.key']).toBe('record:ordered');
  });

  it('an event a dead publisher left in the outbox is relayed with the trace of the unit of work that registered it', async () => {
    const dead = recordingBus(buses, dataSource, Number.POSITIVE_INFINITY, DEAD_PUBLISHER);
    const event = RecordUpdated.create({ recid: 'relayed' });
    const { span: request } = await tracing.inSpan('PUT /records/relayed', () =>
      dead.uows.run(async (uow) => uow.register(new SendEventOp(event))),
    );
    await dead.bus.close();
    expect(await outboxRows(dataSource)).toHaveLength(1);
    const create = await oneSpan('create RECORD.UPDATE');
    expect(create.kind).toBe(SpanKind.PRODUCER);
    expect(parentIdOf(create)).toBe(request.spanId);
    expect(create.attributes['messaging.operation.name']).toBe('create');

    const handlers: EventHandlersConfig = {
      'RECORD.UPDATE': [[defineHandler('trace.relayed', () => {}), true]],
    };
    const relay = buses.create({
      events: OUTBOX_TEST_EVENTS,
      handlers,
      dataSource,
      ...config(kind, { outboxGraceMs: 50, outboxRelayEveryMs: 20 }),
    });
    await relay.startWorker({ handleSignals: false });
    const handled = await oneSpan('process RECORD.UPDATE');
    expectHandlerSpan(handled, {
      key: 'RECORD.UPDATE',
      eventId: event.id,
      handler: 'trace.relayed',
      attempt: 1,
      parent: create.spanContext(),
    });
    await waitFor('the relayed row deleted', async () => (await outboxRows(dataSource)).length === 0);
    // The relay's own work is a root span of its own, and so is the drain batch that handled the event.
    const relayed = await oneSpan('outbox relay');
    expect(relayed.kind).toBe(SpanKind.INTERNAL);
    expect(relayed.attributes).toMatchObject({
      'messaging.system': 'commitbus',
      'messaging.batch.message_count': 1,
    });
    expect(parentIdOf(relayed)).toBeUndefined();
    const [drained] = tracing
      .named('drain batch')
      .filter((span) => span.attributes['commitbus.drain.acknowledged'] === 1) as [ReadableSpan];
    expect(drained.attributes).toMatchObject({
      'messaging.batch.message_count': 1,
      'commitbus.drain.taken_over': false,
    });
    expect(parentIdOf(drained)).toBeUndefined();
  });

  it('an idempotent handler run again for an event it already handled is a span marked skipped', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [{ handler: rec.handler('trace.once'), sync: true, idempotent: true }],
    };
    const { bus } = await buses.start({
      events: OUTBOX_TEST_EVENTS,
      handlers,
      dataSource,
      ...config(kind),
    });
    const event = RecordCreated.create({ recid: 'once' });
    const { payload } = bus.encode(event);
    await bus.transport.publish([{ id: event.id, payload }]);
    await waitFor('the first run', () => rec.count('trace.once') === 1);
    await bus.whenIdle();
    // The same entry again, past the dedupe window, as a redelivery after a lost ack would bring it.
    await bus.transport.publish([{ id: event.id, payload, skipDedupe: true }]);
    await waitFor('two handler spans', () => tracing.named('process RECORD.CREATE').length === 2);
    await bus.whenIdle();

    expect(rec.count('trace.once')).toBe(1);
    const skipped = tracing
      .named('process RECORD.CREATE')
      .map((s) => s.attributes['commitbus.handler.skipped']);
    expect(skipped).toEqual([undefined, true]);
  });

  it('a malformed trace context in an entry written past the bus is ignored: the event is handled in a new trace', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [[rec.handler('trace.poison'), true]] };
    const bus = buses.create({ events: OUTBOX_TEST_EVENTS, handlers, ...config(kind) });
    const malformed: unknown[] = [
      { traceparent: 'garbage' },
      { traceparent: `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01` },
      { traceparent: `00-${'A'.repeat(32)}-${'1'.repeat(16)}-01` },
      { traceparent: 42 },
      'traceparent',
      null,
    ];
    const events = malformed.map((_, i) => RecordCreated.create({ recid: `poison-${i}` }));
    const payloads = events.map((event, i) => {
      const envelope = JSON.parse(bus.encode(event).payload) as Record<string, unknown>;
      return JSON.stringify({ ...envelope, trace: malformed[i] });
    });
    if (kind === 'redis') {
      for (const payload of payloads) await redis.xadd(queueNamesOf(bus.config).stream, '*', 'p', payload);
      // A publish of our own starts a drain (an XADD does not).
      await bus.publish(RecordCreated.create({ recid: 'kick' }));
    } else {
      await bus.transport.publish(
        events.map((event, i) => ({ id: event.id, payload: payloads[i] as string })),
      );
    }
    await bus.startWorker({ handleSignals: false });
    await bus.whenIdle(10_000);

    expect(events.map((e) => rec.count('trace.poison', e.id))).toEqual(events.map(() => 1));
    expect(await bus.deadLetters.list()).toEqual([]);
    for (const event of events) {
      const span = tracing
        .named('process RECORD.CREATE')
        .find((s) => s.attributes['messaging.message.id'] === event.id) as ReadableSpan;
      expect(parentIdOf(span)).toBeUndefined();
    }
    const ignored = tracing.debugLines.filter((line) =>
      line.startsWith('commitbus: ignored the trace context'),
    );
    expect(ignored).toHaveLength(malformed.length);
  });
});
