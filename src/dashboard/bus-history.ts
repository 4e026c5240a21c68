import type { EventBus } from '../bus/event-bus.js';

/**
 * One minute of a bus's history, as `bus.history()` returns it: counters
 * summed over the bus's processes, the backlog the largest sample in that
 * minute (null when none was taken).
 */
export interface HistoryPoint {
  /** The minute's start. */
  readonly minute: Date;
  /** Events published. */
  readonly published: number;
  /** Handler runs that succeeded. */
  readonly handled: number;
  /** Handler runs that failed. */
  readonly failed: number;
  /** Runs stored for a retry. */
  readonly retried: number;
  /** Dead letters stored. */
  readonly deadLettered: number;
  /** Events waiting, or null. */
  readonly backlog: number | null;
  /** Age of the oldest waiting event in ms, or null. */
  readonly backlogAgeMs: number | null;
}

/** What `GET api/history` answers: the points, oldest first (minutes as ISO 8601). */
export interface HistoryView {
  /** Whether the bus keeps a history at all. */
  readonly available: boolean;
  /** One point a minute, the last 24 h. */
  readonly points: readonly HistoryPoint[];
}

// Typed here, not imported: the history store may be missing from the bus the dashboard was given.
interface WithHistory {
  readonly history?: (options?: { sinceMs?: number }) => Promise<HistoryPoint[]>;
}

/** Reads `bus.history()` (the last 24 h), or says the bus keeps none. */
export async function readHistory(bus: EventBus): Promise<HistoryView> {
  const source = bus as unknown as WithHistory;
  if (typeof source.history !== 'function') return { available: false, points: [] };
  return { available: true, points: await source.history.call(bus) };
}
