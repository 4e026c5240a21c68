import { EventRejectedError } from './errors/event-rejected.error.js';
import { EventSkippedError } from './errors/event-skipped.error.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { HistoryEvent } from './store-event.js';

/**
 * What a wait for handled event `v` gives its caller: the history row of a
 * handled event; {@link EventSkippedError} for one skipped or ignored,
 * {@link EventRejectedError} for one a reducer rejected, and a usage error
 * when its row was pruned before it could be read.
 */
export function handledOutcome(v: number, event: HistoryEvent | undefined): HistoryEvent {
  if (event === undefined) {
    throw new EventStoreUsageError(
      `event v${v} was handled, but its history row was pruned before it could be read`,
    );
  }
  if (event.status === 'skipped' || event.status === 'ignored') throw new EventSkippedError(event);
  if (event.status === 'rejected') throw EventRejectedError.of(event);
  return event;
}
