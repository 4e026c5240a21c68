import { v7 as uuidv7 } from 'uuid';

/** A new unique, time-sortable event id (UUIDv7). */
export function newEventId(): string {
  return uuidv7();
}
