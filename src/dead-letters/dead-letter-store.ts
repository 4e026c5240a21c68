import type { DeadLetter, DeadLetterKind, DeadLetterReason } from './dead-letter.js';
import type { CorruptDeadLetterError } from './errors/corrupt-dead-letter.error.js';

/** Which dead letters to list, re-drive or purge: all fields given must match. */
export interface DeadLetterFilter {
  /** Letters of this handler. */
  readonly handler?: string;
  /** Letters of events with exactly this handling key. */
  readonly handlingKey?: string;
  /** Letters of this event. */
  readonly eventId?: string;
  /** Letters of this kind. */
  readonly kind?: DeadLetterKind;
  /** Letters given up for this reason. */
  readonly reason?: DeadLetterReason;
  /** Letters given up at or after this time (`deadAt`). */
  readonly since?: Date;
  /** Letters given up before this time (`deadAt`). */
  readonly until?: Date;
  /**
   * At most this many, oldest first.
   * @defaultValue no limit
   */
  readonly limit?: number;
}

/** A letter as it was read: removing it by version spares a letter that died again since. */
export type DeadLetterVersion = Pick<DeadLetter, 'id' | 'deadAt'>;

/**
 * The port of the dead-letter store: a Redis hash and sorted set on the
 * Redis transport, rows of `commitbus_dead_letters` on the SQL one.
 */
export interface DeadLetterStore {
  /** Stores letters; a letter replaces one with the same id. */
  add(letters: readonly DeadLetter[]): Promise<void>;
  /**
   * Letters matching `filter`, oldest `deadAt` first. A stored letter that
   * cannot be read is left out and handed to `onCorrupt` (it matches no
   * filter and counts toward no `limit`).
   */
  list(filter?: DeadLetterFilter, onCorrupt?: (error: CorruptDeadLetterError) => void): Promise<DeadLetter[]>;
  /** One letter, or `undefined`; throws {@link CorruptDeadLetterError} when it cannot be read. */
  get(id: string): Promise<DeadLetter | undefined>;
  /**
   * Removes letters; returns how many were removed. A `DeadLetterVersion`
   * is removed only if the stored letter still has its `deadAt`.
   */
  remove(letters: readonly (string | DeadLetterVersion)[]): Promise<number>;
}

/** Whether `letter` matches every field `filter` sets (`limit` aside). */
export function matchesDeadLetterFilter(letter: DeadLetter, filter: DeadLetterFilter): boolean {
  return (
    (filter.handler === undefined || letter.handler === filter.handler) &&
    (filter.handlingKey === undefined || letter.handlingKey === filter.handlingKey) &&
    (filter.eventId === undefined || letter.eventId === filter.eventId) &&
    (filter.kind === undefined || letter.kind === filter.kind) &&
    (filter.reason === undefined || letter.reason === filter.reason) &&
    (filter.since === undefined || letter.deadAt.getTime() >= filter.since.getTime()) &&
    (filter.until === undefined || letter.deadAt.getTime() < filter.until.getTime())
  );
}
