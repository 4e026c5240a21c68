import {
  type Attributes,
  type Context,
  diag,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import type { Event } from '../events/event.js';
import { envelopeTraceOf } from '../events/trace-carrier.js';
import { failSpan } from './fail-span.js';
import { fromTraceCarrier } from './traceparent.js';
import { MESSAGING_SYSTEM, noTracerProvider, tracer } from './tracer.js';

/** The span of one handler run, as {@link inHandlerSpan} hands it to the run. */
export type HandlerSpan = Pick<Span, 'isRecording' | 'setAttribute'>;

/** One handler run, as its span describes it. */
export interface HandlerRunTrace {
  /** The event, as decoded from its envelope (which may carry the publisher's trace context). */
  readonly event: Event;
  /** The handler's name. */
  readonly handler: string;
  /** Which attempt of the handler this run is, from 1. */
  readonly attempt: number;
}

/**
 * Runs `run` in a CONSUMER span `process <handling key>`, active while it
 * runs (so the handler's own spans nest in it). Its parent is the
 * publisher's span from the event's envelope, whichever way the event came
 * (a drain, a retry or async job, a delayed event, an ordered lane, a relayed
 * outbox row, a re-driven handler dead letter); without one it is the root of
 * a new trace. A malformed trace context is ignored with a debug line on the
 * api's `diag` logger. The span records what `run` rejects with and gets an error status.
 * `run` gets the span, to mark it later ({@link noteIdempotentSkip}).
 */
export function inHandlerSpan<T>(
  runTrace: HandlerRunTrace,
  run: (span: HandlerSpan) => Promise<T>,
): Promise<T> {
  const { event } = runTrace;
  return tracer.startActiveSpan(
    `process ${event.handlingKey}`,
    { kind: SpanKind.CONSUMER, attributes: noTracerProvider() ? undefined : handlerAttributes(runTrace) },
    parentOf(event),
    async (span) => {
      try {
        return await run(span);
      } catch (error) {
        failSpan(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Marks `span` as the run of an idempotent handler that skipped (it had
 * already run); nothing once the span has ended (the run timed out first).
 */
export function noteIdempotentSkip(span: HandlerSpan): void {
  if (span.isRecording()) span.setAttribute('commitbus.handler.skipped', true);
}

/** The publisher's span from the envelope, as a parent context; the root context if none (or unreadable). */
function parentOf(event: Event): Context {
  const carried = envelopeTraceOf(event);
  if (carried === undefined) return ROOT_CONTEXT;
  const remote = fromTraceCarrier(carried);
  if (typeof remote === 'string') {
    diag.debug(`commitbus: ignored the trace context of event ${event.id} (${event.handlingKey}): ${remote}`);
    return ROOT_CONTEXT;
  }
  return trace.setSpanContext(ROOT_CONTEXT, remote);
}

function handlerAttributes({ event, handler, attempt }: HandlerRunTrace): Attributes {
  const attributes: Attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.name': 'process',
    'messaging.operation.type': 'process',
    'messaging.destination.name': event.handlingKey,
    'messaging.consumer.group.name': handler,
    'messaging.message.id': event.id,
    'commitbus.event.id': event.id,
    'commitbus.handling_key': event.handlingKey,
    'commitbus.handler': handler,
    'commitbus.attempt': attempt,
  };
  if (event.ordering !== undefined) {
    attributes['commitbus.order.key'] = event.ordering.key;
    attributes['commitbus.order.seq'] = event.ordering.seq;
  }
  return attributes;
}
