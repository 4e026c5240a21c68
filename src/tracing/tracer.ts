import { type Tracer, trace } from '@opentelemetry/api';

/** The instrumentation scope of commitbus's spans: filter or sample on it. */
export const COMMITBUS_TRACER_NAME = 'commitbus';

/** `messaging.system` on every commitbus span. */
export const MESSAGING_SYSTEM = 'commitbus';

/**
 * commitbus's tracer. The api hands out a proxy that follows whatever
 * provider is registered, before or after this is first called; with none,
 * every span it starts is a no-op.
 */
export const tracer: Tracer = trace.getTracer(COMMITBUS_TRACER_NAME);
