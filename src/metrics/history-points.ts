import { HistoryQueryError } from './errors/history-query.error.js';
import {
  firstMinuteOf,
  type HistoryPoint,
  type HistoryReading,
  MINUTE_MS,
  minuteOf,
  NO_SAMPLE,
} from './history-store.js';

/** How far back `bus.history()` reads by default: 24 hours, every minute a store keeps. */
export const HISTORY_DEFAULT_SINCE_MS = 86_400_000;

/** Throws {@link HistoryQueryError} unless `sinceMs` is a whole number of milliseconds from 0. */
export function checkSinceMs(sinceMs: unknown): number {
  if (typeof sinceMs !== 'number' || !Number.isSafeInteger(sinceMs) || sinceMs < 0) {
    throw new HistoryQueryError(sinceMs);
  }
  return sinceMs;
}

/**
 * One point per minute from the first minute `sinceMs` before the store's
 * `now` covers to the current one, oldest first: the minutes stored as they
 * are, every other minute zero (`backlog` and `backlogAgeMs` null: nothing
 * was sampled).
 */
export function historyPoints(reading: HistoryReading, sinceMs: number): HistoryPoint[] {
  const now = reading.now.getTime();
  const stored = new Map(reading.minutes.map((m) => [m.minute.getTime(), m]));
  const points: HistoryPoint[] = [];
  for (let at = firstMinuteOf(now, sinceMs); at <= minuteOf(now); at += MINUTE_MS) {
    points.push(stored.get(at) ?? { minute: new Date(at), ...NO_SAMPLE });
  }
  return points;
}
