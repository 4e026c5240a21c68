import 'reflect-metadata';
import { Type } from 'class-transformer';
import { MissingEventTypeError } from './errors/missing-event-type.error.js';
import type { EventContext } from './event-context.js';
import { newEventId } from './event-id.js';
import type { EventOrdering } from './event-ordering.js';
import { type EventClass, handlingKeyOf } from './event-type.decorator.js';

/** The plain data fields of an event class `E`, as `Event.create` takes them. */
export type EventProps<E extends Event> = {
  // biome-ignore lint/complexity/noBannedTypes: filters out methods
  [K in keyof E as K extends keyof Event ? never : E[K] extends Function ? never : K]: E[K];
} & Partial<Pick<Event, 'id' | 'createdAt' | 'context'>>;

/**
 * Base class of every event: a fact about what happened. Subclasses add data
 * fields and a handling key with `@EventType('RECORD.CREATE')`.
 *
 * Subclass constructors must be callable without arguments (the worker builds
 * events that way before filling in their fields); create instances with
 * `MyEvent.create({ ... })`.
 */
export abstract class Event {
  /** Unique, time-sortable id (UUIDv7). */
  id: string = newEventId();

  /** When the event was created. */
  @Type(() => Date)
  createdAt: Date = new Date();

  /** Who or what caused the event. */
  context?: EventContext;

  /**
   * For an ordered event (its class has `orderBy`, or it was sent with
   * `orderKey`), as a worker hands it to handlers: its order key, `seq` and
   * the `prev` it follows. Set by commitbus; absent when publishing.
   */
  ordering?: EventOrdering;

  /** Creates an event of this class with the given fields. */
  static create<E extends Event>(this: new () => E, props: EventProps<E>): E {
    return Object.assign(new this(), props);
  }

  /** The handling key of this event class, e.g. `RECORD.CREATE`. */
  static get handlingKey(): string {
    const key = handlingKeyOf(this);
    if (key === undefined) throw new MissingEventTypeError(this.name);
    return key;
  }

  /** The handling key of this event's class. */
  get handlingKey(): string {
    return (this.constructor as typeof Event).handlingKey;
  }

  /** First segment of the handling key (`'RECORD'` of `'RECORD.CREATE'`): the entity the event is about. Not the key: compare `handlingKey` to tell events apart. */
  get type(): string {
    return this.handlingKey.split('.')[0] as string;
  }

  /** Last segment of the handling key (`'CREATE'` of `'RECORD.CREATE'`): what happened to it. */
  get action(): string {
    return this.handlingKey.split('.').at(-1) as string;
  }
}

/** A concrete event class, as the registry and handlers see it. */
export type ConcreteEventClass<E extends Event = Event> = (new () => E) & EventClass<E>;
