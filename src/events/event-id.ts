import { v7 as uuidv7 } from 'uuid';

// Ids travel in the clear (stream entries, dead-letter ids, job ids): a small alphabet keeps them safe everywhere.
const EVENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** A new unique, time-sortable event id (UUIDv7). */
export function newEventId(): string {
  return uuidv7();
}

/** Whether `id` is an id events may carry: letters, digits, `_` and `-`, 1 to 128 of them. */
export function isEventId(id: unknown): id is string {
  return typeof id === 'string' && EVENT_ID_PATTERN.test(id);
}
