import { instanceToPlain, plainToInstance } from 'class-transformer';
import { InvalidEventIdError } from './errors/invalid-event-id.error.js';
import { MalformedEventError } from './errors/malformed-event.error.js';
import { UnknownEventTypeError } from './errors/unknown-event-type.error.js';
import type { Event } from './event.js';
import type { EventRegistry } from './event-registry.js';
import type { SerializedEvent } from './serialized-event.js';

const ENVELOPE_VERSION = 1;
// Ids become part of queue job ids, where BullMQ forbids ":".
const EVENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

interface Envelope {
  v: number;
  key: string;
  event: Record<string, unknown>;
  /** Ordered events: the order key and, once a transaction assigned it, the position. Always last. */
  order?: { key: string; position?: number };
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

  /** Serializes an event of a registered class; an ordered event with its order key. */
  serialize(event: Event, orderKey?: string): SerializedEvent {
    const key = event.handlingKey;
    if (typeof event.id !== 'string' || !EVENT_ID_PATTERN.test(event.id)) {
      throw new InvalidEventIdError(event.id);
    }
    if (!this.registry.knows(event)) {
      throw new UnknownEventTypeError(key, this.registry.keys());
    }
    const envelope: Envelope = {
      v: ENVELOPE_VERSION,
      key,
      event: instanceToPlain(event) as Record<string, unknown>,
    };
    if (orderKey === undefined) return { id: event.id, key, payload: JSON.stringify(envelope) };
    envelope.order = { key: orderKey };
    return { id: event.id, key, payload: JSON.stringify(envelope), orderKey };
  }

  /**
   * Decodes a payload. Throws {@link MalformedEventError} for anything that is
   * not an envelope this serializer wrote, {@link UnknownEventTypeError} for a
   * key with no registered class.
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
    if (typeof parsed.event.id !== 'string' || typeof parsed.event.createdAt !== 'string') {
      throw new MalformedEventError('event has no string "id" or "createdAt"', payload);
    }
    const cls = this.registry.get(parsed.key);
    const event = plainToInstance(cls, parsed.event) as Event;
    if (!(event.createdAt instanceof Date) || Number.isNaN(event.createdAt.getTime())) {
      throw new MalformedEventError('"createdAt" is not a valid date', payload);
    }
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

/**
 * Adds the position a transaction assigned to an ordered event's envelope
 * (whose `order` field {@link EventSerializer.serialize} wrote last).
 */
export function withOrderPosition(payload: string, position: number): string {
  if (!payload.endsWith('}}') || !Number.isInteger(position)) {
    throw new Error('withOrderPosition: not an ordered envelope');
  }
  return `${payload.slice(0, -2)},"position":${position}}}`;
}

/** The order key and position in an envelope, or `undefined` for an unordered event. */
export function orderOfPayload(payload: string): EnvelopeOrder | undefined {
  if (!payload.includes('"order":')) return undefined;
  try {
    const order = (JSON.parse(payload) as Envelope).order;
    if (order === undefined || typeof order.key !== 'string') return undefined;
    return typeof order.position === 'number'
      ? { key: order.key, position: order.position }
      : { key: order.key };
  } catch {
    return undefined;
  }
}
