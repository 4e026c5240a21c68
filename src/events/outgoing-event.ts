/** A serialized event on its way to a transport. */
export interface OutgoingEvent {
  /** The event's id: a transport drops an id it accepted within `dedupeWindowMs`. */
  readonly id: string;
  /** The JSON envelope written by `EventSerializer`. */
  readonly payload: string;
  /** Epoch milliseconds before which the event must not be handled; absent: at once. */
  readonly deliverAt?: number;
  /** A deliberate republish of an accepted id (a re-driven dead letter): the dedupe window does not apply. */
  readonly skipDedupe?: boolean;
  /** An ordered event's sync lane (`s|<order key>`); it goes there instead of the stream. */
  readonly lane?: string;
  /** Its position in the lane, when a transaction assigned it; else the lane's next. */
  readonly position?: number;
}

/**
 * Positions a re-base of a sync lane went past, `[from, to)`: the lane waited
 * for `from`, then went on from `to` (see `ordering/lane-rebase.ts`).
 */
export interface SkippedRange {
  /** The first position skipped: the one the lane waited for. */
  readonly from: number;
  /** The position the lane went on from (not skipped). */
  readonly to: number;
  /** Why the lane was re-based: `no-state`, `gap` or `operator`. */
  readonly why: 'no-state' | 'gap' | 'operator';
  /** When (epoch ms, the store's clock). */
  readonly at: number;
}

/**
 * An ordered event that came for a position its lane had skipped in a
 * re-base: the lane did not take it (it can no longer run in order), and the
 * publisher keeps it as a dead letter (reason `skipped-by-rebase`).
 */
export interface LateOrderedEvent {
  /** The event as it was published. */
  readonly event: OutgoingEvent;
  /** Its position in its lane. */
  readonly position: number;
  /** The re-base that skipped it. */
  readonly rebase: SkippedRange;
}

/** What one append did. */
export interface AppendResult {
  /** Events now waiting to be drained. */
  readonly appended: number;
  /** Events waiting for their delivery time. */
  readonly delayed: number;
  /**
   * Events dropped as duplicates: their id was seen within the dedupe window,
   * or their lane holds or has handled their position.
   */
  readonly dropped: number;
  /** Ordered events for positions their lane skipped in a re-base, taken by no lane; absent: none. */
  readonly late?: readonly LateOrderedEvent[];
}
