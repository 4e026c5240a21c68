import { type Span, SpanStatusCode } from '@opentelemetry/api';
import { describeError } from '../support/logger.js';

/**
 * Records `error` on `span`, sets `error.type` (a commitbus error's stable
 * code, else the error's class name: low-cardinality, as the conventions
 * ask) and its status to ERROR.
 */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const { name, message, stack, code } = describeError(error);
  span.recordException(stack === undefined ? { name, message } : { name, message, stack });
  const commitbusCode = code?.startsWith('COMMITBUS_') === true ? code : undefined;
  span.setAttribute('error.type', commitbusCode ?? name);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
