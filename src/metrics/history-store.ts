/** The minutes a {@link HistoryStore} keeps: the current one and the 1,439 before it (24 hours). */
export const HISTORY_MINUTES = 1_440;

/** A minute, in milliseconds. */
export const MINUTE_MS = 60_000;

/**
 * What one process counted since its last flush, and the backlog it saw:
 * the counters are added into a minute, the gauges kept at their largest.
 */
export interface HistorySample {
  /** Events published. */
  readonly published: number;
  /** Handler runs that succeeded. */
  readonly handled: number;
  /** Handler runs that threw or timed out. */
  readonly failed: number;
  /** Failed runs scheduled to run again. */
  readonly retried: number;
  /** Dead letters stored. */
  readonly deadLettered: number;
  /** Events published and not yet drained, as sampled; `null` when not sampled. */
  readonly backlog: number | null;
  /** Age of the oldest of them in ms, as sampled (0 when none waits); `null` when not sampled. */
  readonly backlogAgeMs: number | null;
}

/** A sample of nothing: no count, no backlog sampled (a minute nothing was recorded in). */
export const NO_SAMPLE: HistorySample = Object.freeze({
  published: 0,
  handled: 0,
  failed: 0,
  retried: 0,
  deadLettered: 0,
  backlog: null,
  backlogAgeMs: null,
});

/**
 * One minute of a bus's history: its start and what was recorded in it,
 * summed over the bus's processes (`bus.history()` returns one per minute,
 * zero-filled; a store returns the minutes it holds).
 */
export interface HistoryPoint extends HistorySample {
  /** The minute's start (a whole minute, on the store's clock). */
  readonly minute: Date;
}

/** What {@link HistoryStore.read} returns: the minutes kept, and the store's clock at the read. */
export interface HistoryReading {
  /** The store's clock when it read: the current minute is `now`'s. */
  readonly now: Date;
  /** The minutes stored in the range, oldest first; a minute nothing was recorded in is absent. */
  readonly minutes: readonly HistoryPoint[];
}

/**
 * The port where a bus's processes add what they counted, minute by minute,
 * for the last 24 hours (`bus.history()`, the dashboard's charts): a hash
 * under the bus's hash tag on Redis, rows of `commitbus_history` on SQL.
 * Every process of a bus adds into the same minutes; each bus has its own.
 *
 * What every adapter keeps (test/conformance/history-store.conformance.test.ts):
 *
 * - **The store's clock picks the minute.** {@link record} adds `sample`
 *   into the minute of the store's clock now (Redis `TIME`, the database's
 *   clock), not the caller's: processes whose clocks disagree still add into
 *   the same minute.
 * - **Counters add, gauges keep their largest.** Within a minute,
 *   `published`, `handled`, `failed`, `retried` and `deadLettered` are the
 *   sum of every sample recorded; `backlog` and `backlogAgeMs` the largest
 *   sample given (a `null` changes nothing; `null` when none was given).
 * - **Bounded.** Only the current minute and the {@link HISTORY_MINUTES} - 1
 *   before it are kept: {@link record} removes older ones, and
 *   {@link read} never returns them.
 * - **Reading on the store's clock.** {@link read} returns `now` and the
 *   minutes stored from the minute of `now - sinceMs` (at most 24 hours
 *   back) to the current one, oldest first.
 *
 * A call that rejects (on Redis with `TransportUnavailableError` while
 * Redis cannot be reached) recorded nothing, or did what it would have done.
 */
export interface HistoryStore {
  /** Adds `sample` into the store's current minute. */
  record(sample: HistorySample): Promise<void>;
  /** The minutes stored from `now - sinceMs` on, oldest first, with the store's clock. */
  read(sinceMs: number): Promise<HistoryReading>;
}

/** The start of the minute `at` (epoch ms) is in. */
export function minuteOf(at: number): number {
  return Math.floor(at / MINUTE_MS) * MINUTE_MS;
}

/** The first minute a read of `sinceMs` before `now` covers: at most {@link HISTORY_MINUTES} minutes, the current one included. */
export function firstMinuteOf(now: number, sinceMs: number): number {
  const oldestKept = minuteOf(now) - (HISTORY_MINUTES - 1) * MINUTE_MS;
  return Math.max(minuteOf(now - Math.max(0, sinceMs)), oldestKept);
}
