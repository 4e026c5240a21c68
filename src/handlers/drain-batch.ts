import {
  type AttemptFailure,
  attemptFailure,
  attemptFailureFromJson,
} from '../dead-letters/attempt-failure.js';
import { type DeadLetter, eventDeadLetter, handlerDeadLetter } from '../dead-letters/dead-letter.js';
import { TransportUnavailableError } from '../support/errors/transport-unavailable.error.js';
import type { Logger } from '../support/logger.js';
import type { ScheduledRetry } from './bus-observer.js';
import type { DrainedEvent } from './dispatcher.js';
import type { LogEntry } from './event-log.js';
import type { HandlerJob } from './handler-job.js';
import type { DeadLetterSink } from './observed-dead-letters.js';

/** What {@link drainBatch} needs: the drain's dependencies that handle one batch. */
export interface DrainBatchDeps {
  /** Handles one event read by a drain (see `Dispatcher.drainOne`). */
  readonly drainOne: (entry: LogEntry) => Promise<DrainedEvent>;
  /**
   * Enqueues handler jobs. Rejects with {@link TransportUnavailableError} when
   * the transport cannot take work now; any other rejection refuses the jobs.
   */
  readonly enqueue: (jobs: HandlerJob[]) => Promise<void>;
  /** Keeps what was given up. */
  readonly deadLetters: DeadLetterSink;
  /** Where poison in a batch is reported. */
  readonly logger: Logger;
  /** Told of each retry a sync handler's failure scheduled, once its job is enqueued. */
  readonly retried?: (retry: ScheduledRetry) => void;
}

/** One entry of a batch and what handling it produced. */
interface EntryWork {
  readonly entry: LogEntry;
  readonly jobs: HandlerJob[];
  readonly deadLetters: DeadLetter[];
  /** The retry its jobs carry, if any (the job of kind `retry`). */
  readonly retried: ScheduledRetry | undefined;
  /** The transport was down for part of its work: it stays in the log for redelivery. */
  pending: boolean;
}

/**
 * Handles one batch of a drain so that no event can fail the others: each
 * event is dispatched on its own; their jobs go out in one call, and if that
 * fails, one call per job. An event whose handling or job fails because the
 * transport is down stays in the log (not acknowledged) and is redelivered; a
 * job the transport refuses for any other reason becomes a dead letter of its
 * handler, and an event the drain fails on becomes a dead letter of kind
 * `event` (reason `undeliverable`). Dead letters are stored before anything is
 * acknowledged. Resolves to the entry ids to acknowledge.
 */
export async function drainBatch(entries: readonly LogEntry[], deps: DrainBatchDeps): Promise<string[]> {
  const works: EntryWork[] = [];
  for (const entry of entries) works.push(await handleEntry(entry, deps));
  const jobs = works.flatMap((w) => w.jobs);
  const letters = works.flatMap((w) => w.deadLetters);
  // The usual case in one round trip each, at once: every job accepted.
  const [enqueued, stored] = await Promise.allSettled([
    jobs.length > 0 ? deps.enqueue(jobs) : undefined,
    letters.length > 0 ? deps.deadLetters.add(letters) : undefined,
  ]);
  if (stored.status === 'rejected') throw stored.reason;
  if (enqueued.status === 'rejected') {
    const refused = await enqueueOneByOne(works, deps);
    if (refused.length > 0) await deps.deadLetters.add(refused);
  } else {
    for (const work of works) if (work.retried !== undefined) deps.retried?.(work.retried);
  }
  return works.filter((w) => !w.pending).map((w) => w.entry.entryId);
}

async function handleEntry(entry: LogEntry, deps: DrainBatchDeps): Promise<EntryWork> {
  try {
    const drained = await deps.drainOne(entry);
    return {
      entry,
      jobs: drained.jobs,
      deadLetters: drained.deadLetters,
      retried: drained.retried,
      pending: false,
    };
  } catch (error) {
    if (error instanceof TransportUnavailableError) {
      deps.logger.warn(
        { entryId: entry.entryId, error: error.message },
        'transport unavailable while handling an event; it stays in the log and is redelivered',
      );
      return { entry, jobs: [], deadLetters: [], retried: undefined, pending: true };
    }
    const letter = eventDeadLetter(entry.payload, 'undeliverable', [attemptFailure(error, 1)]);
    deps.logger.error(
      { deadLetter: letter.id, eventId: letter.eventId, error: letter.error },
      'drain failed on an event; kept as a dead letter, the rest of its batch goes on',
    );
    return { entry, jobs: [], deadLetters: [letter], retried: undefined, pending: false };
  }
}

/**
 * After a batch's jobs failed to go out together: each job on its own, so one
 * job the transport refuses cannot hold back the others. Marks the entries
 * whose jobs met an outage pending; resolves to the dead letters of the
 * refused jobs.
 */
async function enqueueOneByOne(works: readonly EntryWork[], deps: DrainBatchDeps): Promise<DeadLetter[]> {
  const refused: DeadLetter[] = [];
  await Promise.all(
    works.flatMap((work) =>
      work.jobs.map(async (job) => {
        try {
          await deps.enqueue([job]);
          if (job.kind === 'retry' && work.retried !== undefined) deps.retried?.(work.retried);
        } catch (error) {
          if (error instanceof TransportUnavailableError) {
            work.pending = true;
            return;
          }
          refused.push(refusedJobLetter(job, error, deps.logger));
        }
      }),
    ),
  );
  const pending = works.filter((w) => w.pending).length;
  if (pending > 0) {
    deps.logger.warn(
      { events: pending },
      'transport unavailable while enqueueing handler jobs; their events stay in the log and are redelivered',
    );
  }
  return refused;
}

function refusedJobLetter(job: HandlerJob, error: unknown, logger: Logger): DeadLetter {
  const failures: AttemptFailure[] = (job.failures ?? []).map(attemptFailureFromJson);
  failures.push(attemptFailure(error, job.firstAttempt ?? 1));
  const letter = handlerDeadLetter(job.payload, job.handler, 'undeliverable', failures);
  logger.error(
    { deadLetter: letter.id, handler: job.handler, error: letter.error },
    'the transport refused a handler job; kept as a dead letter, the rest of its batch goes on',
  );
  return letter;
}
