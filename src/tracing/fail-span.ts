import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { describeError } from '../support/logger.js';

/** Records `error` on `span` and sets its status to ERROR. */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const { name, message, stack } = describeError(error);
  span.recordException(stack === undefined ? { name, message } : { name, message, stack });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
