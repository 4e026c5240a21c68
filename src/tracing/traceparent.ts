import { createTraceState, isSpanContextValid, type SpanContext } from '@opentelemetry/api';
import type { TraceCarrier } from '../events/trace-carrier.js';

/** The one `traceparent` form commitbus writes and reads: version 00, lowercase hex. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The longest `tracestate` commitbus writes or reads (W3C's limit); a longer one is left out whole. */
const MAX_TRACESTATE_LENGTH = 512;

/**
 * A span context as the envelope carries it (W3C Trace Context), or
 * `undefined` for an invalid one (no SDK registered, or no span). A
 * `tracestate` longer than 512 characters is left out.
 */
export function toTraceCarrier(spanContext: SpanContext): TraceCarrier | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const tracestate = spanContext.traceState?.serialize();
  const keep = tracestate !== undefined && tracestate !== '' && tracestate.length <= MAX_TRACESTATE_LENGTH;
  return keep ? { traceparent, tracestate } : { traceparent };
}

/**
 * The remote span context an envelope's `trace` field carries, checked to be
 * what {@link toTraceCarrier} writes; a string saying why not when it is not
 * (the caller ignores it: a malformed trace never fails an event).
 * A `tracestate` that is not a string is dropped, its members W3C refuses too.
 */
export function fromTraceCarrier(trace: unknown): SpanContext | string {
  if (typeof trace !== 'object' || trace === null) return `"trace" is ${describe(trace)}, not an object`;
  const { traceparent, tracestate } = trace as Record<string, unknown>;
  if (typeof traceparent !== 'string') return `"traceparent" is ${describe(traceparent)}, not a string`;
  const match = TRACEPARENT.exec(traceparent);
  if (match === null) {
    return `"traceparent" ${describe(traceparent)} is not 00-<32 hex>-<16 hex>-<2 hex>`;
  }
  const [, traceId = '', spanId = '', flags = ''] = match;
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  };
  if (!isSpanContextValid(spanContext)) return `"traceparent" ${describe(traceparent)} has a zero id`;
  if (typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE_LENGTH) {
    spanContext.traceState = createTraceState(tracestate);
  }
  return spanContext;
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : typeof value;
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
