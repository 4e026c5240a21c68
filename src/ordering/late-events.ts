import { type DeadLetter, eventDeadLetter } from '../dead-letters/dead-letter.js';
import type { LateOrderedEvent } from '../events/outgoing-event.js';
import type { DeadLetterSink } from '../handlers/observed-dead-letters.js';
import type { Logger } from '../support/logger.js';
import { parseLane } from './lane.js';

/** What {@link keepLateEvents} says of the re-base that skipped an event. */
function describeRebase({ rebase }: LateOrderedEvent): string {
  return `re-based past it (from position ${rebase.from} to ${rebase.to}, why ${rebase.why}, at ${new Date(rebase.at).toISOString()})`;
}

/**
 * The dead letter (kind `event`, reason `skipped-by-rebase`) of an ordered
 * event that came for a position its lane had skipped: its error names the
 * order key, the position and the re-base. Re-driving it publishes the event
 * without its lane, so its handlers run outside the key's order.
 */
export function lateEventLetter(late: LateOrderedEvent, at: Date = new Date()): DeadLetter {
  const { key } = parseLane(late.event.lane ?? '');
  const error = `order key ${key}: position ${late.position} came after the lane was ${describeRebase(late)}; it can no longer run in order: re-drive it to run its handlers outside the key's order`;
  return eventDeadLetter(late.event.payload, 'skipped-by-rebase', [
    { attempt: 1, at, error, name: 'SkippedByRebase' },
  ]);
}

/**
 * Keeps ordered events that came late for positions their lanes skipped in a
 * re-base (`AppendResult.late`) as dead letters, through the bus's dead-letter
 * sink (so `onDeadLetter` and the metrics hear of each), and warns of each.
 * Throws what storing them throws: the publisher then fails, and an outbox
 * relay keeps its rows and publishes them again (late again, not dropped).
 */
export async function keepLateEvents(
  late: readonly LateOrderedEvent[],
  deadLetters: DeadLetterSink,
  logger: Logger,
): Promise<void> {
  const letters = late.map((event) => lateEventLetter(event));
  await deadLetters.add(letters);
  late.forEach((event, i) => {
    const letter = letters[i] as DeadLetter;
    const { key } = parseLane(event.event.lane ?? '');
    logger.warn(
      {
        key,
        position: event.position,
        eventId: letter.eventId,
        deadLetter: letter.id,
        rebase: event.rebase,
      },
      `order key ${key}: position ${event.position} arrived after the lane was ${describeRebase(event)}; kept as dead letter ${letter.id} (reason skipped-by-rebase): re-drive it to run its handlers outside the key's order`,
    );
  });
}
