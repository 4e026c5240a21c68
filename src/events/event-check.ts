import { NotAnEventError } from './errors/not-an-event.error.js';
import { Event } from './event.js';

/**
 * Throws {@link NotAnEventError} unless `value` is an {@link Event}: a coded
 * error where a `TypeError` would come out of the first property read.
 * `where` names the call (`bus.publish`, `new SendEventOp`).
 */
export function assertEvent(value: unknown, where: string): asserts value is Event {
  if (value instanceof Event) return;
  throw new NotAnEventError(where, describeValue(value));
}

/** `null`, `undefined`, `an array`, `a plain object`, `a Date`, `a number (42)`, ... */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = Object.getPrototypeOf(value)?.constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `a ${name}` : 'a plain object';
  }
  const text = String(value);
  return `a ${typeof value} (${text.length > 40 ? `${text.slice(0, 40)}…` : text})`;
}
