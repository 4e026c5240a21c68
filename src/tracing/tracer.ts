import { ProxyTracerProvider, type Tracer, trace } from '@opentelemetry/api';
import { packageVersion } from '../support/package-version.js';

/** The instrumentation scope of commitbus's spans: filter or sample on it. */
export const COMMITBUS_TRACER_NAME = 'commitbus';

/** `messaging.system` on every commitbus span. */
export const MESSAGING_SYSTEM = 'commitbus';

/**
 * commitbus's tracer, versioned with the package (the instrumentation
 * scope's version). The api hands out a proxy that follows whatever
 * provider is registered, before or after this is first called; with none,
 * every span it starts is a no-op.
 */
export const tracer: Tracer = trace.getTracer(COMMITBUS_TRACER_NAME, packageVersion());

/** What the api's global proxy delegates to while no provider is registered. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether no tracer provider is registered, so every span {@link tracer}
 * starts is a no-op and building its attributes would be wasted. Checked at
 * each span (a provider may be registered at any time); `false` whenever it
 * cannot tell (another copy of the api registered the global), so attributes
 * are then built.
 */
export function noTracerProvider(): boolean {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === NO_PROVIDER;
}
