import type { Event } from '../events/event.js';
import { envelopeTraceOf, type TraceCarrier } from '../events/trace-carrier.js';
import { fromTraceCarrier, toTraceCarrier } from './traceparent.js';

/**
 * The trace context the envelope `event` was decoded from carried, checked
 * and written again as commitbus writes it; `undefined` when it carried none
 * or a malformed one. Re-driving an event with it keeps the event in the
 * trace of the producer span that first published it.
 */
export function carriedTraceOf(event: Event): TraceCarrier | undefined {
  const carried = envelopeTraceOf(event);
  if (carried === undefined) return undefined;
  const remote = fromTraceCarrier(carried);
  return typeof remote === 'string' ? undefined : toTraceCarrier(remote);
}
