import { InvalidHandlingKeyError } from './errors/invalid-handling-key.error.js';

const HANDLING_KEY = Symbol.for('commitbus.handlingKey');
const KEY_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Any class whose instances are events. */
// biome-ignore lint/suspicious/noExplicitAny: constructor arity is the event author's choice
export type EventClass<E = object> = abstract new (...args: any[]) => E;

/**
 * Class decorator giving an event class its dotted handling key, e.g.
 * `@EventType('RECORD.CREATE')`. The first segment is the event's `type`, the
 * last its `action`.
 */
export function EventType(handlingKey: string): <C extends EventClass>(target: C) => C {
  assertHandlingKey(handlingKey);
  return (target) => {
    Object.defineProperty(target, HANDLING_KEY, { value: handlingKey, enumerable: false });
    return target;
  };
}

/** The handling key an event class was decorated with, or `undefined`. */
export function handlingKeyOf(cls: EventClass): string | undefined {
  return Object.hasOwn(cls, HANDLING_KEY)
    ? ((cls as unknown as Record<symbol, string>)[HANDLING_KEY] ?? undefined)
    : undefined;
}

/** Throws {@link InvalidHandlingKeyError} unless `key` is dotted segments of `[A-Za-z0-9_-]`. */
export function assertHandlingKey(key: string): void {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new InvalidHandlingKeyError(key);
  }
}
