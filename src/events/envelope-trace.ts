import type { TraceCarrier } from './trace-carrier.js';

/**
 * An envelope `payload` (as `EventSerializer.serialize` writes it, without a
 * trace) with `trace` added as its last field. The envelope is a JSON object,
 * so the field goes before its closing brace: the same text
 * `JSON.stringify` writes for the envelope with the field.
 */
export function withEnvelopeTrace(payload: string, trace: TraceCarrier): string {
  return `${payload.slice(0, -1)}${traceField(trace)}}`;
}

/**
 * `payload` (an envelope without a trace, `bytes` long in UTF-8, within
 * `maxBytes`) with as much of `trace` as fits in `maxBytes`: the whole trace;
 * else the trace without its `tracestate`; else no trace. Tracing never makes
 * an event too large: the size limit is on the event, not on its trace.
 */
export function withTraceWithin(
  payload: string,
  bytes: number,
  trace: TraceCarrier | undefined,
  maxBytes: number,
): string {
  if (trace === undefined) return payload;
  const candidates: TraceCarrier[] =
    trace.tracestate === undefined ? [trace] : [trace, { traceparent: trace.traceparent }];
  const fits = candidates.find((candidate) => bytes + Buffer.byteLength(traceField(candidate)) <= maxBytes);
  return fits === undefined ? payload : withEnvelopeTrace(payload, fits);
}

function traceField(trace: TraceCarrier): string {
  return `,"trace":${JSON.stringify(trace)}`;
}
