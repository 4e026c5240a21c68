import type { AttemptFailureJson } from '../dead-letters/attempt-failure.js';
import type { HaltReason } from './ordering-store.js';

/** A lane's current event, as the store keeps it between steps. */
export interface CurrentEventState {
  /** Its position in the lane. */
  readonly position: number;
  /** Its `seq`, kept across redeliveries. */
  readonly seq: number;
  /** The `seq` of the key's previous event, if any. */
  readonly prev: number | undefined;
  /** Attempts already made of the handler at `from`. */
  readonly attemptsMade: number;
  /** Their failures. */
  readonly failures: readonly AttemptFailureJson[];
  /** Index in the sync chain to go on from. */
  readonly from: number;
  /** Set when an operator skipped it: why it had halted. */
  readonly skipped: HaltReason | undefined;
  /**
   * Times it was handed to a worker since its last recorded step (see
   * `LaneEvent.deliveries`): 0 while it waits for a retry, is halted or was
   * resumed, 1 while its first owner runs it, more after takeovers.
   */
  readonly deliveries: number;
}

/** An event stored in a lane; on async lanes with the `seq` and `prev` the sync lane gave it. */
export interface StoredLaneEvent {
  /** The serialized event. */
  readonly payload: string;
  /** Async lanes: the event's `seq`. */
  readonly seq?: number;
  /** Async lanes: the `seq` of the key's previous event, if any. */
  readonly prev?: number;
}

/** One lane, as the store keeps it. */
export interface LaneState {
  /** The last position the store assigned in this lane (0: none). */
  readonly tail: number;
  /** The position to handle next. */
  readonly next: number;
  /** The `seq` of the last event handled here (the next one's `prev`). */
  readonly last: number | undefined;
  /** The worker that owns the lane, if any. */
  readonly owner: string | undefined;
  /** Whether the lane is queued for a worker to take. */
  readonly queued: boolean;
  /** Its current event, once a worker was handed it. */
  readonly current: CurrentEventState | undefined;
  /** Why it halted, as recorded on the lane. */
  readonly halt: HaltReason | undefined;
  /** Whether it is in the store's list of halted lanes. */
  readonly halted: boolean;
  /** When its current event runs again (epoch ms, the store's clock), if it waits for a retry. */
  readonly retryAt: number | undefined;
  /** Events waiting in it, by position. */
  readonly events: ReadonlyMap<number, StoredLaneEvent>;
}

/**
 * The state of the lanes and workers asked for, read at one instant: what
 * `OrderingStore.inspect` returns, for checks of the store's invariants and
 * for operators debugging a key.
 */
export interface OrderingState {
  /** The instant, in the store's clock (epoch ms). */
  readonly now: number;
  /** Lanes queued for workers, the one taken next last. */
  readonly ready: readonly string[];
  /** Every worker with a lease, and when it expires (epoch ms). */
  readonly leases: ReadonlyMap<string, number>;
  /** The lanes each worker asked for took, newest first. */
  readonly taken: ReadonlyMap<string, readonly string[]>;
  /** The last `seq` given. */
  readonly seq: number;
  /** Events waiting in lanes. */
  readonly pending: number;
  /** The lanes asked for (a lane never used reads as empty). */
  readonly lanes: ReadonlyMap<string, LaneState>;
}
