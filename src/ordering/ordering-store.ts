import type { AttemptFailureJson } from '../dead-letters/attempt-failure.js';
import type { RebaseLog, RebaseReply, RebaseWhy } from './lane-rebase.js';
import type { CurrentEventState, OrderingState } from './ordering-state.js';

/**
 * A lane's current event, as a worker that owns the lane gets it: the state
 * the store keeps (`from` is 0 on async lanes), its lane and its payload.
 */
export interface LaneEvent extends CurrentEventState {
  /** The lane (see `lane.ts`). */
  readonly lane: string;
  /** The serialized event. */
  readonly payload: string;
  /**
   * How many times the event, where it stands (`from`, `attemptsMade`), has
   * been handed to a worker, this time included: 1, plus one for each time a
   * new owner took the lane over from a worker that died or stalled before it
   * recorded a step. A retry or an operator's resume starts it again. Past
   * `maxDeliveries` its handlers are not run.
   */
  readonly deliveries: number;
  /**
   * Set when the lane was re-based to reach this event (it waited longer than
   * the gap wait for the position `from`): the worker warns.
   */
  readonly rebased?: { readonly from: number; readonly why: RebaseWhy };
}

/** Why a lane halted. */
export interface HaltReason {
  /** The handler that gave up, absent when the payload could not be decoded. */
  readonly handler?: string;
  /** Why: a dead-letter reason (`exhausted`, `timeout`, `non-retryable`, `crashed`, `unknown-event-type`, `malformed`). */
  readonly reason: string;
  /** The last error message. */
  readonly error: string;
}

/** What a worker did with a lane's current event. */
export type LaneStep =
  | {
      /** Finished: the lane moves on and the event goes to these async lanes. */
      readonly op: 'done';
      readonly lane: string;
      readonly position: number;
      readonly fanOut: readonly string[];
    }
  | {
      /** Run it again in `delayMs`, from chain index `from`. */
      readonly op: 'later';
      readonly lane: string;
      readonly position: number;
      readonly delayMs: number;
      readonly attemptsMade: number;
      readonly failures: readonly AttemptFailureJson[];
      readonly from: number;
    }
  | {
      /** Halt the lane at this event until an operator resumes it. */
      readonly op: 'halt';
      readonly lane: string;
      readonly position: number;
      readonly attemptsMade: number;
      readonly failures: readonly AttemptFailureJson[];
      readonly from: number;
      readonly why: HaltReason;
    }
  | {
      /** Let go of the lane (shutdown); another worker resumes it. */
      readonly op: 'release';
      readonly lane: string;
    };

/** Why a lane gave no event: nothing at its next position, another live worker owns it, it is halted, or waits for a retry. */
export type LaneStatus = 'empty' | 'owned' | 'halted' | 'waiting';

/** The reply to a step: the lane's next event, a status, `ok`, or `lost` (the worker no longer owns the lane). */
export type StepReply = LaneEvent | LaneStatus | 'ok' | 'lost';

/** A halted lane, as the store keeps it. */
export interface HaltedLane {
  /** The lane. */
  readonly lane: string;
  /** When it halted. */
  readonly haltedAt: Date;
  /** The event it halted at. */
  readonly event: LaneEvent;
  /** Why. */
  readonly why: HaltReason;
  /** Events of the lane waiting behind it (the halted one included). */
  readonly waiting: number;
}

/**
 * The port of ordered lanes: where ordered events wait per order key, who owns
 * a lane, and its current event. Every method is atomic. Implemented on Redis
 * (Lua scripts) and on SQL (`commitbus_lanes` and the tables beside it, on
 * PostgreSQL or SQLite), both shared by every process of the bus.
 *
 * Gaps: when a worker is to be handed a sync lane's next event and that
 * position is missing while later ones wait, the store notes since when
 * (once per position) and hands nothing; once the store's gap wait
 * (`laneGapWaitMs`, given at construction; 0: for ever) has passed it
 * re-bases the lane to the first position it holds, records and counts the
 * re-base (see `rebased`), and hands that event out with `rebased` set.
 * `maintain` queues lanes whose gap wait is over. Every re-base (an
 * operator's too) also records on the lane the positions it skipped (the
 * newest 32 ranges; past that the two oldest merge): the adapter's publish
 * hands an event that comes later for one of them back in
 * `AppendResult.late` instead of dropping it as a copy of a handled one.
 */
export interface OrderingStore {
  /**
   * Takes up to `max` lanes that have work, claims them, and returns their current events; none while
   * the worker has no live lease (see `maintain`).
   */
  take(worker: string, max: number): Promise<LaneEvent[]>;
  /** Waits up to `blockMs` for a lane with work and claims it (not without a live lease). */
  waitAndClaim(worker: string, blockMs: number): Promise<LaneEvent | undefined>;
  /** Applies steps in one round trip; one reply each (`done` replies with the lane's next event). */
  steps(worker: string, steps: readonly LaneStep[]): Promise<StepReply[]>;
  /** Renews the worker's lease, hands dead workers' lanes back, and queues lanes whose retry is due. */
  maintain(worker: string, leaseMs: number): Promise<void>;
  /** The worker leaves: its lanes go back at once. */
  leave(worker: string): Promise<void>;
  /** Halted lanes, oldest first. */
  halted(): Promise<HaltedLane[]>;
  /** Resumes halted lanes: run the event again, or skip its failed handler; resolves to how many resumed. */
  resume(mode: 'redrive' | 'skip', lanes: readonly string[]): Promise<number>;
  /**
   * Re-bases a sync lane on purpose: it goes on from `position`, by default
   * the first position it holds, instead of waiting for its `next`; refused
   * (see `RebaseReply`) while it has a current event or for a position
   * above one it holds.
   */
  rebase(lane: string, position?: number): Promise<RebaseReply>;
  /** The re-bases recorded (automatic and on purpose): their count and the newest `limit`. */
  rebased(limit: number): Promise<RebaseLog>;
  /** Events waiting in lanes (halted lanes' included). */
  pending(): Promise<number>;
  /** Events waiting in halted lanes. */
  pendingInHalted(): Promise<number>;
  /**
   * Reads the state of `lanes` and `workers` at one instant, changing
   * nothing: for checks of the invariants (`test/ordering/invariants-*.test.ts`
   * run both adapters through it) and for debugging a key.
   */
  inspect(lanes: Iterable<string>, workers: Iterable<string>): Promise<OrderingState>;
  /** Ends blocking waits (shutdown). */
  interrupt?(): void;
}
