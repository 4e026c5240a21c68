import { InvalidEventTypeOptionsError } from './errors/invalid-event-type-options.error.js';
import { InvalidHandlingKeyError } from './errors/invalid-handling-key.error.js';
import type { OrderingPolicy } from './ordering-policy.js';

const HANDLING_KEY = Symbol.for('commitbus.handlingKey');
const ORDERING = Symbol.for('commitbus.ordering');
const KEY_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Any class whose instances are events. */
// biome-ignore lint/suspicious/noExplicitAny: constructor arity is the event author's choice
export type EventClass<E = object> = abstract new (...args: any[]) => E;

/** Options of {@link EventType}. */
export interface EventTypeOptions<E> {
  /**
   * Makes the class ordered: events with the same key (`(e) => \`record:${e.recid}\``)
   * are handled one at a time, in the order their units of work committed.
   */
  readonly orderBy?: OrderingPolicy<E>['orderBy'];
  /**
   * For an ordered class: what its key does once a handler gave up on one of
   * its events, `halt` (until an operator re-drives or skips it) or `skip`.
   * @defaultValue `'halt'`
   */
  readonly afterLastAttempt?: OrderingPolicy<E>['afterLastAttempt'];
}

/**
 * Class decorator giving an event class its dotted handling key, e.g.
 * `@EventType('RECORD.CREATE')`. The first segment is the event's `type`, the
 * last its `action`. With `{ orderBy }` the class's events are ordered per key.
 */
// biome-ignore lint/suspicious/noExplicitAny: the event type is inferred from orderBy's parameter
export function EventType<E = any>(
  handlingKey: string,
  options: EventTypeOptions<E> = {},
): <C extends EventClass<E>>(target: C) => C {
  assertHandlingKey(handlingKey);
  const { orderBy, afterLastAttempt } = options;
  if (orderBy !== undefined && typeof orderBy !== 'function') {
    throw new InvalidEventTypeOptionsError(
      handlingKey,
      'orderBy must be a function of the event giving its order key, e.g. orderBy: (e) => "record:" + e.recordId',
    );
  }
  if (afterLastAttempt !== undefined && afterLastAttempt !== 'halt' && afterLastAttempt !== 'skip') {
    throw new InvalidEventTypeOptionsError(handlingKey, "afterLastAttempt must be 'halt' or 'skip'");
  }
  if (afterLastAttempt !== undefined && orderBy === undefined) {
    throw new InvalidEventTypeOptionsError(
      handlingKey,
      'afterLastAttempt applies to ordered events; give orderBy too',
    );
  }
  return (target) => {
    Object.defineProperty(target, HANDLING_KEY, { value: handlingKey, enumerable: false });
    if (orderBy !== undefined) {
      const policy: OrderingPolicy<E> = { orderBy, afterLastAttempt: afterLastAttempt ?? 'halt' };
      Object.defineProperty(target, ORDERING, { value: policy, enumerable: false });
    }
    return target;
  };
}

/** The handling key an event class was decorated with, or `undefined`. */
export function handlingKeyOf(cls: EventClass): string | undefined {
  return Object.hasOwn(cls, HANDLING_KEY)
    ? ((cls as unknown as Record<symbol, string>)[HANDLING_KEY] ?? undefined)
    : undefined;
}

/** The ordering of an event class (`@EventType(key, { orderBy })`), or `undefined` if unordered. */
export function orderingPolicyOf<E>(cls: EventClass<E>): Required<OrderingPolicy<E>> | undefined {
  return Object.hasOwn(cls, ORDERING)
    ? (cls as unknown as Record<symbol, Required<OrderingPolicy<E>>>)[ORDERING]
    : undefined;
}

/** Whether `key` is a handling key: dotted segments of `[A-Za-z0-9_-]`. */
export function isHandlingKey(key: unknown): key is string {
  return typeof key === 'string' && KEY_PATTERN.test(key);
}

/** Throws {@link InvalidHandlingKeyError} unless `key` is dotted segments of `[A-Za-z0-9_-]`. */
export function assertHandlingKey(key: string): void {
  if (!isHandlingKey(key)) throw new InvalidHandlingKeyError(key);
}
