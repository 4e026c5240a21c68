import type { DeadLetterKind } from '../dead-letters/dead-letter.js';
import type { JobCounts } from '../handlers/handler-job-counts.js';
import type { RuleKind } from '../scheduling/scheduling-rule.js';
import type { WorkersStatus } from './worker-status.js';

/** One handler's share of a {@link BusStatus}. */
export interface HandlerStatus extends JobCounts {
  /** Its work held back by a pause. */
  readonly parked: number;
  /** Its dead letters. */
  readonly deadLetters: number;
}

/** A halted order key, as a {@link BusStatus} lists it. */
export interface HaltedKeyStatus {
  /** The order key. */
  readonly key: string;
  /** `sync`, or `async` for the lane of one async handler. */
  readonly lane: 'sync' | 'async';
  /** The handler that gave up, or null when the event could not be decoded. */
  readonly handler: string | null;
  /** Why it halted (a dead-letter reason). */
  readonly reason: string;
  /** The last error message. */
  readonly error: string;
  /** When it halted (ISO 8601). */
  readonly haltedAt: string;
  /** Events of the lane waiting, the halted one included. */
  readonly waiting: number;
}

/** A key whose lane was re-based, as a {@link BusStatus} lists it. */
export interface RebasedKeyStatus {
  /** The order key. */
  readonly key: string;
  /** The position its lane waited for. */
  readonly from: number;
  /** The position it went on from. */
  readonly to: number;
  /** `no-state` (Redis lost the lane's state), `gap` (a position never came) or `operator` (`bus.ordering.rebase`). */
  readonly why: 'no-state' | 'gap' | 'operator';
  /** When (ISO 8601). */
  readonly rebasedAt: string;
}

/** A pause or block in force, as a {@link BusStatus} lists it. */
export interface RuleStatus {
  /** `pause` or `block`. */
  readonly kind: RuleKind;
  /** The handler it matches, or null for a handling-key rule. */
  readonly handler: string | null;
  /** The handling key it matches (and the keys below it), or null for a handler rule. */
  readonly handlingKey: string | null;
  /** When it was set (ISO 8601). */
  readonly since: string;
}

/**
 * What `bus.status()` reads: a snapshot of the work of one bus, across all
 * its processes on Redis (this process's on SQLite in memory). Plain JSON: dates are
 * ISO 8601 strings, ages milliseconds, absent values `null`.
 */
export interface BusStatus {
  /** Which bus: its `name`, `prefix` and its transport adapter's name (`redis`, `sql-postgres`, `sql-sqlite`). */
  readonly bus: { readonly name: string; readonly prefix: string; readonly transport: string };
  /** When this was read (ISO 8601). */
  readonly readAt: string;
  /** Published events not yet drained. */
  readonly backlog: {
    /** Events in the drain's log (a Redis stream, the SQL events table), being handled or waiting. */
    readonly events: number;
    /** Age of the oldest of them in ms, or null when there is none. */
    readonly oldestAgeMs: number | null;
    /** Ordered events waiting in their order keys' lanes (halted lanes' included). */
    readonly ordered: number;
    /** Events published with a delay that are not yet due. */
    readonly delayed: number;
  };
  /** Handler jobs not finished (async handlers, retries, re-driven letters). */
  readonly jobs: JobCounts;
  /** Work held back by pauses, delivered on resume. */
  readonly parked: number;
  /** Runs dropped by blocks so far. */
  readonly dropped: number;
  /** Work given up after its last attempt. */
  readonly deadLetters: {
    /** How many. */
    readonly count: number;
    /** How many of each kind (kinds with none are absent). */
    readonly byKind: Readonly<Partial<Record<DeadLetterKind, number>>>;
    /** How many per handler (`undecodable` letters have none). */
    readonly byHandler: Readonly<Record<string, number>>;
    /** Letters dropped to keep `deadLetters.maxCount` and `deadLetters.maxAgeMs`, since the count began. */
    readonly dropped: number;
  };
  /** Order keys halted by a handler that gave up. */
  readonly halted: {
    /** Halted lanes. */
    readonly count: number;
    /** The oldest few (at most `BUS_STATUS_HALTED_SHOWN`, 10). */
    readonly first: readonly HaltedKeyStatus[];
  };
  /**
   * Order keys whose lane stopped waiting for a position that would never
   * come and went on from the first it held (on its own after the gap wait,
   * or by `bus.ordering.rebase`): see README's "Ordered events".
   */
  readonly rebased: {
    /** Re-bases since the bus's count began (it only grows). */
    readonly count: number;
    /** The newest few (at most `BUS_STATUS_REBASED_SHOWN`, 10), newest first. */
    readonly recent: readonly RebasedKeyStatus[];
  };
  /** Pauses and blocks in force, oldest first. */
  readonly rules: readonly RuleStatus[];
  /**
   * The names of the transport's BullMQ queues that are paused (bull-board's
   * pause button, or BullMQ's `queue.pause()`): no worker takes their jobs
   * until they are resumed. `[]` when none is, or the work is not on BullMQ.
   */
  readonly pausedQueues: readonly string[];
  /** Per handler: every handler of this bus's `EVENT_HANDLERS`, and any other with work or letters. */
  readonly handlers: Readonly<Record<string, HandlerStatus>>;
  /** The transactional outbox, or null when the bus has no DataSource with an outbox. */
  readonly outbox: {
    /** Rows committed and not yet known to be published. */
    readonly pending: number;
    /** Age of the oldest row in ms, or null when there is none. */
    readonly oldestAgeMs: number | null;
  } | null;
  /** The bus's workers, alive and gone, from their beats (see README's "Workers"). */
  readonly workers: WorkersStatus;
}

/** How many halted keys a {@link BusStatus} shows. */
export const BUS_STATUS_HALTED_SHOWN = 10;

/** How many re-based keys a {@link BusStatus} shows. */
export const BUS_STATUS_REBASED_SHOWN = 10;
