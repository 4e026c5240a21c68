import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { Event } from '../events/event.js';
import type { HandlerJob } from './handler-job.js';
import type { HandlerTable } from './handler-table.js';

/**
 * The job that gives a `handler` dead letter another go: one fresh run of its
 * handler (a sync one too, without the rest of its chain), with that
 * handler's attempts and backoff as `table` has them now. Throws
 * `UnknownHandlerError` when this process does not know the handler.
 */
export function redriveJob(table: HandlerTable, letter: DeadLetter, event: Event): HandlerJob {
  const handler = table.find(event.handlingKey, letter.handler ?? '');
  return {
    kind: 'async',
    // One job per version of the letter: re-driving it twice at once adds one job.
    jobId: `${letter.id}.redrive.${letter.deadAt.getTime()}`,
    payload: letter.payload,
    handler: handler.name,
    attempts: handler.attempts,
    backoff: handler.backoff,
    delayMs: 0,
  };
}
