import { type Attributes, type Span, SpanKind } from '@opentelemetry/api';
import type { Event } from '../events/event.js';
import type { TraceCarrier } from '../events/trace-carrier.js';
import { failSpan } from './fail-span.js';
import { toTraceCarrier } from './traceparent.js';
import { MESSAGING_SYSTEM, noTracerProvider, tracer } from './tracer.js';

/**
 * What a producer span stands for: `create` (registered in a unit of work,
 * published after commit) or `publish` (`bus.publish`, to the transport now).
 */
export type ProducerOperation = 'create' | 'publish';

/** Each operation's `messaging.operation.name` (and type), the span's name's first word. */
const OPERATION_NAME: Record<ProducerOperation, 'create' | 'send'> = { create: 'create', publish: 'send' };

/**
 * The PRODUCER spans of events being published, one per event, each a child
 * of the context active when they start. Each event's envelope carries its
 * span's context ({@link ProducerSpans.carrier}), so the handlers' spans hang
 * under it. With no OpenTelemetry SDK registered the spans are no-ops and no
 * event carries a trace.
 */
export class ProducerSpans {
  private readonly spans: Span[];

  /** Starts a span `create <handling key>` or `send <handling key>` for each of `events`, in the active context. */
  constructor(events: readonly Event[], operation: ProducerOperation) {
    const off = noTracerProvider();
    this.spans = events.map((event) =>
      tracer.startSpan(`${OPERATION_NAME[operation]} ${event.handlingKey}`, {
        kind: SpanKind.PRODUCER,
        attributes: off ? undefined : producerAttributes(event, operation),
      }),
    );
  }

  /** The trace context the `index`th event's envelope carries; `undefined` when there is none. */
  carrier(index: number): TraceCarrier | undefined {
    const span = this.spans[index];
    return span === undefined ? undefined : toTraceCarrier(span.spanContext());
  }

  /** Ends every span: with an error status and the exception when `error` is given. */
  end(error?: unknown): void {
    for (const span of this.spans) {
      if (error !== undefined) failSpan(span, error);
      span.end();
    }
  }
}

function producerAttributes(event: Event, operation: ProducerOperation): Attributes {
  return {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.name': OPERATION_NAME[operation],
    'messaging.operation.type': OPERATION_NAME[operation],
    'messaging.destination.name': event.handlingKey,
    'messaging.message.id': event.id,
    'commitbus.event.id': event.id,
    'commitbus.handling_key': event.handlingKey,
  };
}
