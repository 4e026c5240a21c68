import type { Event } from './event.js';

/**
 * The W3C trace context an event carries in its envelope: the publisher's
 * span as a `traceparent` header value, with its `tracestate` if it has one.
 * Written by commitbus's tracing when an OpenTelemetry SDK is registered;
 * absent otherwise, and in envelopes of older versions or other producers.
 */
export interface TraceCarrier {
  /** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. */
  readonly traceparent: string;
  /** Vendor entries, `key=value` comma-separated; absent when empty. */
  readonly tracestate?: string;
}

// Kept beside the decoded event, not on it: a field of the event would be serialized with it.
const decodedTraces = new WeakMap<Event, unknown>();

/**
 * @internal Records the `trace` field of the envelope `event` was decoded
 * from, unchecked: tracing checks it where it reads it, so a malformed one
 * never fails the event.
 */
export function keepEnvelopeTrace(event: Event, trace: unknown): void {
  if (trace !== undefined) decodedTraces.set(event, trace);
}

/** @internal The `trace` field of the envelope `event` was decoded from, unchecked; `undefined` if none. */
export function envelopeTraceOf(event: Event): unknown {
  return decodedTraces.get(event);
}
