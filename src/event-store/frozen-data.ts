import type { StoreEvent } from './store-event.js';

/**
 * Freezes `value` and everything it holds, in place, and returns it: the
 * data a step gets is the caller's, seen alike by every model and kept in
 * history as it was, so no step may change it (a change throws a
 * `TypeError` in the step, which fails the event).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

/**
 * A frozen copy of data handed over by a step (a preprocessor's output, a
 * sub-event's data), as history will store it: through JSON, so a later
 * change to the step's own object changes nothing, and every step (and a
 * replay) sees exactly what history keeps.
 */
export function frozenCopy(data: unknown): unknown {
  const json = JSON.stringify(data === undefined ? null : data);
  return deepFreeze(JSON.parse(json ?? 'null'));
}

/** `event` frozen, its data included (read fresh from the queue, so frozen in place). */
export function frozenEvent(event: StoreEvent): StoreEvent {
  deepFreeze(event.data);
  return Object.isFrozen(event) ? event : Object.freeze({ ...event });
}
