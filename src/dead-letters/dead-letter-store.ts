import type { DeadLetter, DeadLetterKind, DeadLetterReason } from './dead-letter.js';
import type { DroppedLettersLog } from './dropped-letters-log.js';
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
  /** Letters whose last error message (`error`) contains this text (case-sensitive). */
  readonly errorIncludes?: string;
  /**
   * Which letters come first: `oldest` (`deadAt`, then id, ascending) or
   * `newest` (both descending).
   * @defaultValue `'oldest'`
   */
  readonly order?: DeadLetterOrder;
  /**
   * A cursor: only letters that come after this one in the list's `order`
   * (the last letter of a page, to read the next one). Ties on `deadAt` are
   * ordered by id as the store compares them, the same way on every call.
   */
  readonly after?: DeadLetterVersion;
  /**
   * At most this many, in the list's `order`.
   * @defaultValue no limit
   */
  readonly limit?: number;
}

/** The order of {@link DeadLetterFilter.order}. */
export type DeadLetterOrder = 'oldest' | 'newest';

/** A letter as it was read: removing it by version spares a letter that died again since. */
export type DeadLetterVersion = Pick<DeadLetter, 'id' | 'deadAt'>;

/** How many letters one group holds: the letters of one handler, kind and reason. */
export interface DeadLetterGroupCount {
  /** The letters' handler (`undefined` for letters of no handler, such as `undecodable` ones). */
  readonly handler: string | undefined;
  /** The letters' kind. */
  readonly kind: DeadLetterKind;
  /** Why they were given up. */
  readonly reason: DeadLetterReason;
  /** How many letters the store holds in this group (never 0: a group with none is left out). */
  readonly count: number;
}

/** The store's counts: {@link DeadLetterStore.counts}. */
export interface DeadLetterCounts {
  /** How many letters the store holds (the sum of the groups' counts). */
  readonly total: number;
  /** One entry per group that holds letters, in no particular order. */
  readonly groups: readonly DeadLetterGroupCount[];
  /** Letters the store dropped to keep its retention (oldest first), since its count began; it only grows. */
  readonly dropped: number;
}

/** How many letters a store keeps, and for how long: {@link DeadLetterStore.add} drops the oldest beyond. */
export interface DeadLetterRetention {
  /** At most this many letters; `0` for no limit. */
  readonly maxCount: number;
  /** Letters given up (`deadAt`) longer ago than this are dropped; `0` for no limit. */
  readonly maxAgeMs: number;
}

/** How an adapter's dead-letter store keeps its retention (what its transport passes it). */
export interface DeadLetterStoreRetention {
  /** The limits. @defaultValue none (`0`, `0`) */
  readonly retention?: DeadLetterRetention;
  /** Told of each `add` that dropped letters, with how many (a {@link DroppedLettersLog}'s `dropped`). */
  readonly onDropped?: (count: number) => void;
}

/**
 * The port of the dead-letter store: a Redis hash and sorted set on the
 * Redis transport, rows of `commitbus_dead_letters` on the SQL one.
 */
export interface DeadLetterStore {
  /**
   * Stores letters; a letter replaces one with the same id. With a
   * retention, the same call then drops the oldest letters (by `deadAt`)
   * beyond `maxCount` and those older than `maxAgeMs`, atomically with the
   * write, adds them to `counts().dropped` and resolves to how many it
   * dropped (0 without a retention).
   */
  add(letters: readonly DeadLetter[]): Promise<number>;
  /**
   * The letters' counts by handler, kind and reason, kept as letters are
   * added, replaced, removed and dropped (in the same atomic step as the
   * write), so they are exact after every call that resolved. Cheap: it reads
   * one entry per group, never the letters (O(groups), not O(letters)). A
   * letter written around the store (by hand, another tool) is not counted,
   * and removing it changes no count; a counted letter whose stored text was
   * damaged since stays counted until it is removed.
   */
  counts(): Promise<DeadLetterCounts>;
  /**
   * Letters matching `filter`, oldest `deadAt` first (ties by id), or newest
   * first with `order: 'newest'`; with `after`, only those past that letter
   * in that order, so pages chained by their last letter visit every letter
   * once however many share a `deadAt`. A page of `limit` letters reads about
   * `limit` letters, not the whole store. A stored letter that
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

/**
 * Whether `letter` matches every field `filter` sets (`limit`, `order` and
 * `after` aside: the store applies those, in its own order of ids).
 */
export function matchesDeadLetterFilter(letter: DeadLetter, filter: DeadLetterFilter): boolean {
  return (
    (filter.handler === undefined || letter.handler === filter.handler) &&
    (filter.handlingKey === undefined || letter.handlingKey === filter.handlingKey) &&
    (filter.eventId === undefined || letter.eventId === filter.eventId) &&
    (filter.kind === undefined || letter.kind === filter.kind) &&
    (filter.reason === undefined || letter.reason === filter.reason) &&
    (filter.since === undefined || letter.deadAt.getTime() >= filter.since.getTime()) &&
    (filter.until === undefined || letter.deadAt.getTime() < filter.until.getTime()) &&
    (filter.errorIncludes === undefined || letter.error.includes(filter.errorIncludes))
  );
}
