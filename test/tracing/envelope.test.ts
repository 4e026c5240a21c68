/**
 * The trace context in the envelope: the W3C form commitbus writes and the
 * checks it reads it back with; envelopes without it; and a bus with no
 * OpenTelemetry SDK registered, which writes none.
 */
import {
  context,
  createTraceState,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventRegistry } from '../../src/events/event-registry.js';
import { EventSerializer } from '../../src/events/event-serializer.js';
import { envelopeTraceOf } from '../../src/events/trace-carrier.js';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { fromTraceCarrier, toTraceCarrier } from '../../src/tracing/traceparent.js';
import { noTracerProvider } from '../../src/tracing/tracer.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { RecordCreated } from '../helpers/records.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const spanContext = (overrides: Partial<SpanContext> = {}): SpanContext => ({
  traceId: TRACE_ID,
  spanId: SPAN_ID,
  traceFlags: TraceFlags.SAMPLED,
  ...overrides,
});

describe('the W3C trace context an envelope carries', () => {
  it('writes traceparent (and tracestate when not empty) and reads back the same span context, remote', () => {
    const traceState = createTraceState('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    const carrier = toTraceCarrier(spanContext({ traceState }));
    expect(carrier).toEqual({
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
      tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
    });
    const read = fromTraceCarrier(carrier) as SpanContext;
    expect(read).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true });
    expect(read.traceState?.serialize()).toBe('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');

    const unsampled = toTraceCarrier(
      spanContext({ traceFlags: TraceFlags.NONE, traceState: createTraceState('') }),
    );
    expect(unsampled).toEqual({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` });
    expect(fromTraceCarrier(unsampled)).toMatchObject({ traceFlags: 0 });
  });

  it('leaves out a tracestate longer than 512 characters, which it would not read back', () => {
    const long = createTraceState()
      .set('a', 'b'.repeat(200))
      .set('c', 'd'.repeat(200))
      .set('e', 'f'.repeat(200));
    expect(long.serialize().length).toBeGreaterThan(512);
    expect(toTraceCarrier(spanContext({ traceState: long }))).toEqual({
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
    });
  });

  it('writes nothing for an invalid span context (no SDK, no span)', () => {
    expect(toTraceCarrier(trace.getSpanContext(ROOT_CONTEXT) ?? INVALID_SPAN_CONTEXT)).toBeUndefined();
    expect(toTraceCarrier(spanContext({ traceId: '0'.repeat(32) }))).toBeUndefined();
    expect(toTraceCarrier(spanContext({ spanId: '0'.repeat(16) }))).toBeUndefined();
  });

  it('reads back only what it writes, and says why it refused the rest', () => {
    const refused: unknown[] = [
      undefined,
      null,
      'traceparent',
      [],
      {},
      { traceparent: 7 },
      { traceparent: '' },
      { traceparent: `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01` },
      { traceparent: `01-${TRACE_ID}-${SPAN_ID}-01` },
      { traceparent: `ff-${TRACE_ID}-${SPAN_ID}-01` },
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01-extra` },
      { traceparent: `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01` },
      { traceparent: `00-${'0'.repeat(32)}-${SPAN_ID}-01` },
      { traceparent: `00-${TRACE_ID}-${'0'.repeat(16)}-01` },
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-1` },
      { traceparent: ` 00-${TRACE_ID}-${SPAN_ID}-01` },
    ];
    for (const trace of refused) expect(typeof fromTraceCarrier(trace), JSON.stringify(trace)).toBe('string');
    expect(fromTraceCarrier({ traceparent: 'x'.repeat(500) })).toMatch(/^"traceparent" "x{79}…/);
  });

  it('drops a tracestate that is not a string, longer than 512 characters, or its members W3C refuses', () => {
    const traceparent = `00-${TRACE_ID}-${SPAN_ID}-01`;
    const stateOf = (tracestate: unknown) =>
      (fromTraceCarrier({ traceparent, tracestate }) as SpanContext).traceState?.serialize();
    expect(stateOf(42)).toBeUndefined();
    expect(stateOf(`a=${'b'.repeat(511)}`)).toBeUndefined();
    expect(stateOf('ok=1,BAD KEY=2')).toBe('ok=1');
  });
});

describe('envelopes and the trace field', () => {
  const serializer = new EventSerializer(new EventRegistry([RecordCreated]));

  it('an envelope without a trace (an older commitbus, another producer) decodes, with no trace kept', () => {
    const event = RecordCreated.create({ recid: 'old' });
    const payload = serializer.serialize(event).payload;
    expect(JSON.parse(payload)).not.toHaveProperty('trace');
    const decoded = serializer.deserialize(payload);
    expect(decoded.id).toBe(event.id);
    expect(envelopeTraceOf(decoded)).toBeUndefined();
  });

  it('a trace is written beside the event and kept, unchecked, beside the decoded event', () => {
    const event = RecordCreated.create({ recid: 'traced' });
    const carrier = { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` };
    const payload = serializer.serialize(event, carrier).payload;
    expect(JSON.parse(payload)).toMatchObject({ key: 'RECORD.CREATE', trace: carrier });
    expect(envelopeTraceOf(serializer.deserialize(payload))).toEqual(carrier);
    // Whatever the field holds, the event decodes: tracing checks it where it reads it.
    const odd = JSON.stringify({ ...JSON.parse(payload), trace: { traceparent: ['no'] } });
    expect(envelopeTraceOf(serializer.deserialize(odd))).toEqual({ traceparent: ['no'] });
  });
});

describe('a bus with no OpenTelemetry SDK registered', () => {
  const buses = new Buses();
  afterEach(() => buses.closeAll());
  // The embedded transport (no transport given: SQLite in memory): nothing of this file is kept in Redis.
  const start = async (handlers: EventHandlersConfig) => {
    const config = fastConfig({ prefix: 'i12tracing-envelope', name: 'plain' });
    return (await buses.start({ events: [RecordCreated], handlers, config })).bus;
  };

  it('writes no trace into the envelope', async () => {
    const bus = await start({});
    const event = RecordCreated.create({ recid: 'plain' });
    expect(JSON.parse(bus.encode(event).payload)).not.toHaveProperty('trace');
  });

  it('knows no provider is registered, so it builds no span attributes', () => {
    expect(noTracerProvider()).toBe(true);
  });

  describe('with a context manager but no tracer provider', () => {
    beforeAll(() => {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    });
    afterAll(() => context.disable());

    it('passes an incoming trace context (set by another library) on to the envelope unchanged', async () => {
      const bus = await start({});
      const incoming = trace.setSpanContext(ROOT_CONTEXT, spanContext({ isRemote: true }));
      const payload = context.with(
        incoming,
        () => bus.encode(RecordCreated.create({ recid: 'through' })).payload,
      );
      expect(JSON.parse(payload).trace).toEqual({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` });
    });

    it('runs the handlers of an event that carries no trace with no span context, whatever is active where it is taken', async () => {
      const active: (SpanContext | undefined)[] = [];
      const recordActive = () => void active.push(trace.getSpanContext(context.active()));
      const bus = await start({
        'RECORD.CREATE': [
          [defineHandler('notrace.sync', recordActive), true],
          defineHandler('notrace.async', recordActive),
        ],
      });
      const event = RecordCreated.create({ recid: 'plain' });
      const { payload } = bus.encode(event);
      expect(JSON.parse(payload)).not.toHaveProperty('trace');
      // Handed to the transport in another trace's context, as a relay or a re-drive might be.
      const incoming = trace.setSpanContext(ROOT_CONTEXT, spanContext({ isRemote: true }));
      await context.with(incoming, () => bus.transport.publish([{ id: event.id, payload }]));
      await bus.whenIdle();
      expect(active).toHaveLength(2);
      for (const spanContext of active) expect(spanContext && isSpanContextValid(spanContext)).toBeFalsy();
    });
  });
});
