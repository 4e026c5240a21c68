import { type Attributes, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { failSpan } from './fail-span.js';
import { MESSAGING_SYSTEM, noTracerProvider, tracer } from './tracer.js';

/**
 * Runs `run` in an INTERNAL span `name` of commitbus's own work (a drain's
 * batch, an outbox relay pass), a root of its own: the handler spans of the
 * events it moves hang under their publishers' spans, not under it. The
 * span records what `run` rejects with; `attributes` (and what `run`
 * returns, through `after`) are built only while a tracer provider is
 * registered.
 */
export async function inInternalSpan<T>(
  name: string,
  attributes: () => Attributes,
  run: () => Promise<T>,
  after?: (result: T) => Attributes,
): Promise<T> {
  if (noTracerProvider()) return run();
  return tracer.startActiveSpan(
    name,
    { kind: SpanKind.INTERNAL, attributes: { 'messaging.system': MESSAGING_SYSTEM, ...attributes() } },
    ROOT_CONTEXT,
    async (span) => {
      try {
        const result = await run();
        if (after !== undefined) span.setAttributes(after(result));
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
