import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { TraceCarrier } from '../events/trace-carrier.js';
import { failSpan } from './fail-span.js';
import { toTraceCarrier } from './traceparent.js';
import { MESSAGING_SYSTEM, noTracerProvider, tracer } from './tracer.js';

/**
 * Runs `run` in an INTERNAL span `name` of commitbus's own work (a drain's
 * batch, an outbox relay pass), a root of its own: the handler spans of the
 * events it moves hang under their publishers' spans, not under it. The
 * span records what `run` rejects with; `attributes` (and what `run`
 * returns, through `after`) are built only while a tracer provider is
 * registered. A result whose attributes carry `error.type` makes a failed
 * span (status ERROR).
 */
export async function inInternalSpan<T>(
  name: string,
  attributes: () => Attributes,
  run: () => Promise<T>,
  after?: (result: T) => Attributes,
): Promise<T> {
  return inRootSpan(name, SpanKind.INTERNAL, attributes, run, after);
}

/**
 * As {@link inInternalSpan}, a CLIENT span: `run` gets the span's context
 * as W3C Trace Context (`traceparent`, `tracestate`) to send with its
 * request, `undefined` while no tracer provider is registered.
 */
export async function inClientSpan<T>(
  name: string,
  attributes: () => Attributes,
  run: (carrier: TraceCarrier | undefined) => Promise<T>,
  after?: (result: T) => Attributes,
): Promise<T> {
  return inRootSpan(name, SpanKind.CLIENT, attributes, run, after);
}

async function inRootSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: () => Attributes,
  run: (carrier: TraceCarrier | undefined) => Promise<T>,
  after?: (result: T) => Attributes,
): Promise<T> {
  if (noTracerProvider()) return run(undefined);
  return tracer.startActiveSpan(
    name,
    { kind, attributes: { 'messaging.system': MESSAGING_SYSTEM, ...attributes() } },
    ROOT_CONTEXT,
    async (span) => {
      try {
        const result = await run(toTraceCarrier(span.spanContext()));
        if (after !== undefined) {
          const attributes = after(result);
          span.setAttributes(attributes);
          // A result that names an error (a delivery answered 503) is a failed span, as a throw is.
          const errorType = attributes['error.type'];
          if (errorType !== undefined)
            span.setStatus({ code: SpanStatusCode.ERROR, message: String(errorType) });
        }
        return result;
      } catch (error) {
        failSpan(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
