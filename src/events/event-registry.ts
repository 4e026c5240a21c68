import { DuplicateEventTypeError } from './errors/duplicate-event-type.error.js';
import { MissingEventTypeError } from './errors/missing-event-type.error.js';
import { UnknownEventTypeError } from './errors/unknown-event-type.error.js';
import type { ConcreteEventClass, Event } from './event.js';
import { handlingKeyOf } from './event-type.decorator.js';

/**
 * The event classes a bus knows, by handling key. Only registered classes are
 * ever instantiated when decoding, so a payload cannot make the worker build
 * anything else.
 */
export class EventRegistry {
  private readonly byKey = new Map<string, ConcreteEventClass>();

  constructor(classes: Iterable<ConcreteEventClass> = []) {
    for (const cls of classes) this.register(cls);
  }

  /** Adds an event class. Registering the same class twice is a no-op. */
  register(cls: ConcreteEventClass): this {
    const key = handlingKeyOf(cls);
    if (key === undefined) throw new MissingEventTypeError(cls.name);
    const existing = this.byKey.get(key);
    if (existing !== undefined && existing !== cls) {
      throw new DuplicateEventTypeError(key, existing.name, cls.name);
    }
    this.byKey.set(key, cls);
    return this;
  }

  /** The class for a handling key; throws {@link UnknownEventTypeError} if none. */
  get(handlingKey: string): ConcreteEventClass {
    const cls = this.byKey.get(handlingKey);
    if (cls === undefined) throw new UnknownEventTypeError(handlingKey, this.keys());
    return cls;
  }

  /** Whether a class is registered for the handling key. */
  has(handlingKey: string): boolean {
    return this.byKey.has(handlingKey);
  }

  /** Whether this event's class is the one registered for its key. */
  knows(event: Event): boolean {
    return this.byKey.get(event.handlingKey) === event.constructor;
  }

  /** All registered handling keys, sorted. */
  keys(): string[] {
    return [...this.byKey.keys()].sort();
  }
}
