/**
 * Tracing never changes whether an event is published: `maxEventBytes` is
 * checked on the event without its trace, and the trace is trimmed to fit
 * (its `tracestate`, then all of it). A re-driven `event` or `undecodable`
 * dead letter keeps the trace its envelope carried.
 */
import { context, createTraceState, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { eventDeadLetter, undecodableDeadLetter } from '../../src/dead-letters/dead-letter.js';
import { EventRegistry } from '../../src/events/event-registry.js';
import { EventSerializer } from '../../src/events/event-serializer.js';
import { defineHandler, type EventHandlersConfig, EventTooLargeError } from '../../src/index.js';
import { busConfigs, OUTBOX_TEST_EVENTS } from '../helpers/outbox.js';
import { RecordCreated } from '../helpers/records.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { parentIdOf, traceBed } from '../helpers/tracing.js';
import { waitFor } from '../helpers/wait-for.js';

// The embedded transport (SQLite in memory) only: the envelope is the same on both, and nothing is kept in Redis.
const { prefix: PREFIX, buses } = redisTestBed('i12trace2-limits');
const config = busConfigs(PREFIX);
const tracing = traceBed();
const serializer = new EventSerializer(new EventRegistry(OUTBOX_TEST_EVENTS));

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACESTATE = `congo=${'t'.repeat(240)},rojo=${'r'.repeat(240)}`;
/** An incoming request's context (as an HTTP instrumentation sets it), with a long client-sent `tracestate`. */
const incoming = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: TRACE_ID,
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: createTraceState(TRACESTATE),
});
/** What a trace of a `traceparent` alone adds to an envelope: `,"trace":{"traceparent":"00-…-…-01"}`. */
const TRACEPARENT_BYTES = ',"trace":{"traceparent":""}'.length + 55;

/** The ended span named `name` of event `id`, waited for. */
async function spanOf(name: string, id: string): Promise<ReadableSpan> {
  const find = () => tracing.named(name).find((s) => s.attributes['messaging.message.id'] === id);
  await waitFor(`a span ${name} of ${id}`, () => find() !== undefined, {
    timeoutMs: 10_000,
    describe: () => tracing.spans().map((s) => s.name),
  });
  return find() as ReadableSpan;
}

describe('maxEventBytes and the trace', () => {
  /** Publishes `event` in the incoming request's context on a bus whose limit is `extra` bytes over its bare envelope. */
  async function publishWithin(extra: number) {
    const event = RecordCreated.create({ recid: 'sized' });
    const bare = Buffer.byteLength(serializer.serialize(event).payload);
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [[defineHandler('limits.sized', () => {}), true]],
    };
    const { bus } = await buses.start({
      events: OUTBOX_TEST_EVENTS,
      handlers,
      ...config('sqlite', { maxEventBytes: bare + extra }),
    });
    // A unit of work encodes at register as bus.encode does; bus.publish encodes on its own.
    const encoded = context.with(incoming, () => {
      try {
        return bus.encode(event).payload;
      } catch (error) {
        return error;
      }
    });
    const published = await context
      .with(incoming, () => bus.publish(event))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    return { event, bare, bus, encoded, published };
  }

  it('an event that fits with its whole trace carries it, tracestate included', async () => {
    const { event, bare, encoded, published } = await publishWithin(TRACEPARENT_BYTES + 600);
    expect(published).toBeUndefined();
    expect(JSON.parse(encoded as string).trace.tracestate).toBe(TRACESTATE);
    expect(Buffer.byteLength(encoded as string)).toBeGreaterThan(bare + TRACEPARENT_BYTES);
    const handled = await spanOf('process RECORD.CREATE', event.id);
    expect(handled.spanContext().traceState?.serialize()).toBe(TRACESTATE);
  });

  it('an event with room for a traceparent but not the tracestate carries the traceparent alone', async () => {
    const { event, bare, encoded, published } = await publishWithin(TRACEPARENT_BYTES);
    expect(published).toBeUndefined();
    expect(Object.keys(JSON.parse(encoded as string).trace)).toEqual(['traceparent']);
    expect(Buffer.byteLength(encoded as string)).toBe(bare + TRACEPARENT_BYTES);
    const publish = await spanOf('send RECORD.CREATE', event.id);
    const handled = await spanOf('process RECORD.CREATE', event.id);
    expect(handled.spanContext().traceId).toBe(TRACE_ID);
    expect(parentIdOf(handled)).toBe(publish.spanContext().spanId);
    expect(handled.spanContext().traceState).toBeUndefined();
  });

  it('an event with no room for a traceparent is published without a trace, its handler in a new trace', async () => {
    const { event, bare, encoded, published } = await publishWithin(TRACEPARENT_BYTES - 1);
    expect(published).toBeUndefined();
    expect(JSON.parse(encoded as string)).not.toHaveProperty('trace');
    expect(Buffer.byteLength(encoded as string)).toBe(bare);
    const handled = await spanOf('process RECORD.CREATE', event.id);
    expect(handled.spanContext().traceId).not.toBe(TRACE_ID);
    expect(parentIdOf(handled)).toBeUndefined();
  });

  it('an event over the limit without its trace is refused, its size counted without the trace', async () => {
    const { event, bare, encoded, published } = await publishWithin(-1);
    for (const refused of [encoded, published]) {
      expect(refused).toBeInstanceOf(EventTooLargeError);
      expect(refused).toMatchObject({ eventId: event.id, bytes: bare, limit: bare - 1 });
    }
  });
});

describe('re-driven event and undecodable dead letters', () => {
  it('are handled in the trace their envelope carried, under its create span, with no new producer span', async () => {
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [[defineHandler('limits.redriven', () => {}), true]],
    };
    const { bus } = await buses.start({ events: OUTBOX_TEST_EVENTS, handlers, ...config('sqlite') });
    const lost = RecordCreated.create({ recid: 'lost' });
    const unknown = RecordCreated.create({ recid: 'unknown' });
    const { span: request, result: payloads } = await tracing.inSpan('PUT /records', async () => [
      bus.encode(lost).payload,
      bus.encode(unknown).payload,
    ]);
    const failure = { attempt: 1, at: new Date(), error: 'the gate broke', name: 'TypeError' };
    await bus.transport.deadLetters.add([
      eventDeadLetter(payloads[0] as string, 'undeliverable', [failure]),
      undecodableDeadLetter(payloads[1] as string, 'unknown-event-type', [failure]),
    ]);
    // Re-driven later, by an operator, under a span of their own.
    const { span: operator } = await tracing.inSpan('redrive', () => bus.deadLetters.redrive('all'));
    await bus.whenIdle(10_000);

    for (const event of [lost, unknown]) {
      const create = await spanOf('create RECORD.CREATE', event.id);
      expect(parentIdOf(create)).toBe(request.spanId);
      const handled = await spanOf('process RECORD.CREATE', event.id);
      expect(handled.spanContext().traceId).toBe(request.traceId);
      expect(parentIdOf(handled)).toBe(create.spanContext().spanId);
    }
    // The re-drive started no producer span: the two create spans are those of the first encoding.
    expect(tracing.named('create RECORD.CREATE')).toHaveLength(2);
    expect(tracing.named('send RECORD.CREATE')).toEqual([]);
    expect(
      tracing
        .spans()
        .filter((s) => s.spanContext().traceId === operator.traceId)
        .map((s) => s.name),
    ).toEqual(['redrive']);
  });
});
