import type { EventBus } from '../bus/event-bus.js';
import type { HistoryPoint } from '../metrics/history-store.js';

/** What `GET api/history` answers: `bus.history()`'s points, oldest first (minutes as ISO 8601). */
export interface HistoryView {
  /** One point a minute, the last 24 h, every minute present (zero-filled). */
  readonly points: readonly HistoryPoint[];
}

/** Reads `bus.history()` (the last 24 h, one point a minute). */
export async function readHistory(bus: EventBus): Promise<HistoryView> {
  return { points: await bus.history() };
}
