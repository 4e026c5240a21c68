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

/** What one append did. */
export interface AppendResult {
  /** Events now waiting to be drained. */
  readonly appended: number;
  /** Events waiting for their delivery time. */
  readonly delayed: number;
  /** Events dropped because their id was seen within the dedupe window. */
  readonly dropped: number;
}
