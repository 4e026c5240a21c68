import { plainToInstance } from 'class-transformer';
import { withEnvelopeTrace } from './envelope-trace.js';
import { InvalidEventIdError } from './errors/invalid-event-id.error.js';
import { MalformedEventError } from './errors/malformed-event.error.js';
import { UnknownEventTypeError } from './errors/unknown-event-type.error.js';
import type { Event } from './event.js';
import { isEventId } from './event-id.js';
import type { EventRegistry } from './event-registry.js';
import { isHandlingKey } from './event-type.decorator.js';
import { MAX_ORDER_KEY_LENGTH } from './order-key.js';
import type { SerializedEvent } from './serialized-event.js';
import { keepEnvelopeTrace, type TraceCarrier } from './trace-carrier.js';
import { toTransitPlain } from './transit-check.js';
import { reservedKeyIn } from './transit-shapes.js';

const ENVELOPE_VERSION = 1;

interface Envelope {
  v: number;
  key: string;
  event: Record<string, unknown>;
  /** Written by 0.1 for ordered events (key and position); read only to check it. */
  order?: { key: string; position?: number };
  /** The publisher's trace context; never checked here, so a malformed one cannot fail the event. */
  trace?: unknown;
}

/** The order key and position written into an ordered event's envelope. */
export interface EnvelopeOrder {
  /** The order key. */
  readonly key: string;
  /** The position a unit of work's transaction assigned, if any. */
  readonly position?: number;
}

/**
 * JSON serialization of events with class-transformer. Decoding restores the
 * registered class, `Date`s and nested objects declared with `@Type(...)`.
 * Nothing is ever evaluated: an unknown key is an error, not a class lookup.
 */
export class EventSerializer {
  constructor(private readonly registry: EventRegistry) {}

  /**
   * Serializes an event of a registered class. Refuses what a worker could not decode as it was sent: an invalid id
   * ({@link InvalidEventIdError}), an unregistered class
   * ({@link UnknownEventTypeError}), a field JSON would change or cannot
   * carry, such as an invalid `createdAt` or NaN ({@link InvalidEventFieldError}).
   * `trace`, if given, travels in the envelope for the handlers' spans (as
   * its last field: see `envelope-trace.ts`).
   */
  serialize(event: Event, trace?: TraceCarrier): SerializedEvent {
    const key = event.handlingKey;
    if (!isEventId(event.id)) throw new InvalidEventIdError(event.id);
    if (!this.registry.knows(event)) {
      throw new UnknownEventTypeError(key, this.registry.keys());
    }
    const envelope: Envelope = { v: ENVELOPE_VERSION, key, event: toTransitPlain(event) };
    const payload = JSON.stringify(envelope);
    return { id: event.id, key, payload: trace === undefined ? payload : withEnvelopeTrace(payload, trace) };
  }

  /**
   * Decodes a payload. Throws {@link MalformedEventError} for anything that is
   * not an envelope this serializer could have written (among others an id,
   * handling key, `createdAt`, order or own `constructor`/`__proto__` key that `serialize` would have refused),
   * {@link UnknownEventTypeError} for a well-formed key with no registered class.
   * The envelope's trace context is not checked here: it is kept beside the
   * event for the handlers' spans, which ignore a malformed one.
   */
  deserialize(payload: string): Event {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch (error) {
      throw new MalformedEventError('not valid JSON', payload, { cause: error });
    }
    if (!isEnvelope(parsed)) {
      throw new MalformedEventError('expected {"v":1,"key":string,"event":object}', payload);
    }
    if (parsed.v !== ENVELOPE_VERSION) {
      throw new MalformedEventError(`unsupported envelope version ${parsed.v}`, payload);
    }
    const flaw = envelopeFlaw(parsed);
    if (flaw !== undefined) throw new MalformedEventError(flaw, payload);
    const reserved = reservedKeyIn(payload, parsed.event);
    if (reserved !== undefined) {
      throw new MalformedEventError(`${reserved} is a key class-transformer cannot decode`, payload);
    }
    const cls = this.registry.get(parsed.key);
    const event = plainToInstance(cls, parsed.event) as Event;
    if (!(event.createdAt instanceof Date) || Number.isNaN(event.createdAt.getTime())) {
      throw new MalformedEventError('"createdAt" is not a valid date', payload);
    }
    keepEnvelopeTrace(event, parsed.trace);
    return event;
  }
}

function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.v === 'number' &&
    typeof v.key === 'string' &&
    typeof v.event === 'object' &&
    v.event !== null &&
    !Array.isArray(v.event)
  );
}

/** What `serialize` would not have written in a parsed envelope, or `undefined`. */
function envelopeFlaw(envelope: Envelope): string | undefined {
  if (!isHandlingKey(envelope.key)) {
    return `handling key ${quote(envelope.key)} is not dotted segments of letters, digits, "_" or "-"`;
  }
  const { id, createdAt } = envelope.event;
  if (!isEventId(id)) return `event id ${quote(id)} is not 1 to 128 letters, digits, "_" or "-"`;
  if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt))) {
    return `"createdAt" ${quote(createdAt)} is not a date string`;
  }
  const order: unknown = envelope.order;
  if (order === undefined) return undefined;
  const { key, position } = (typeof order === 'object' && order !== null ? order : {}) as Record<
    string,
    unknown
  >;
  const keyOk = typeof key === 'string' && key.length > 0 && key.length <= MAX_ORDER_KEY_LENGTH;
  if (!keyOk || (position !== undefined && !Number.isSafeInteger(position))) {
    return `"order" is not {"key": a string of 1 to ${MAX_ORDER_KEY_LENGTH} characters, "position"?: an integer}`;
  }
  return undefined;
}

/** A value for an error message, cut short. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
