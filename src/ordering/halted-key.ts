/** An order key stopped at an event whose handler gave up (see `bus.ordering.halted()`). */
export interface HaltedKey {
  /** The order key, e.g. `record:42`. */
  readonly key: string;
  /** `sync`: the key's sync handlers stopped; `async`: only the lane of async handler `handler`. */
  readonly lane: 'sync' | 'async';
  /** The handler that gave up; absent when the event could not be decoded. */
  readonly handler?: string;
  /** The event's id, if the payload has one. */
  readonly eventId?: string;
  /** The event's handling key, if the payload has one. */
  readonly handlingKey?: string;
  /** The event's `seq`. */
  readonly seq: number;
  /** Why: `exhausted`, `timeout`, `non-retryable`, `crashed`, `unknown-event-type`, `malformed`. */
  readonly reason: string;
  /** The last error message. */
  readonly error: string;
  /** Attempts made. */
  readonly attempts: number;
  /** When the key halted. */
  readonly haltedAt: Date;
  /** Events of the lane waiting, the halted one included. */
  readonly waiting: number;
  /** The serialized event. */
  readonly payload: string;
}
