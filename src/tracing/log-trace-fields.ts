import { trace } from '@opentelemetry/api';

/**
 * The active span's ids as log fields (`trace_id`, `span_id`), for the
 * default logger's lines, so a log line and its trace are found together;
 * none when no span is active (or no tracing is set up).
 */
export function logTraceFields(): { trace_id?: string; span_id?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (context === undefined || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
