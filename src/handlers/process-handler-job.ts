import type { Event } from '../bus/event.js';
import {
  type AttemptFailureJson,
  attemptFailure,
  attemptFailureFromJson,
  attemptFailureToJson,
} from '../dead-letters/attempt-failure.js';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { Dispatcher } from './dispatcher.js';
import { giveUpReason, undecodableReason } from './handler-failure.js';
import type { HandlerJob } from './handler-job.js';
import type { ResolvedHandler } from './handler-table.js';

/** The fields of a {@link HandlerJob} a transport stores with the job. */
export type HandlerJobData = Pick<HandlerJob, 'payload' | 'handler' | 'firstAttempt' | 'failures'>;

/** One run of a handler job, as its transport hands it over. */
export interface HandlerJobRun {
  /** Which kind of job. */
  readonly kind: HandlerJob['kind'];
  /** Its data, with the failures of its earlier runs. */
  readonly data: HandlerJobData;
  /** Earlier runs of this job. */
  readonly attemptsMade: number;
  /** Total runs the job may make. */
  readonly attempts: number;
  /** Stores the failures so far with the job, before it is run again. */
  saveFailures(failures: readonly AttemptFailureJson[]): Promise<void>;
}

/** What running handler jobs needs. */
export interface HandlerJobDeps {
  /** Runs handlers. */
  readonly dispatcher: Dispatcher;
  /** Adds jobs (a retry job's chain may fail further on). */
  readonly enqueue: (jobs: HandlerJob[]) => Promise<void>;
  /** Where work that is given up goes. */
  readonly deadLetters: DeadLetterStore;
}

/**
 * Runs one async-handler or retry job. A failure with attempts left is saved
 * with the job and thrown, so the transport runs it again after its backoff;
 * a failure on the last attempt, a non-retryable error or a payload that can
 * no longer be decoded becomes a dead letter, and the job completes. A retry
 * job then goes on with the rest of its sync chain. A paused handler's run is
 * parked, a blocked one dropped.
 */
export async function processHandlerJob(run: HandlerJobRun, deps: HandlerJobDeps): Promise<void> {
  const { data } = run;
  const { dispatcher } = deps;
  const attempt = (data.firstAttempt ?? 1) + run.attemptsMade;
  const failuresWith = (error: unknown) => [
    ...(data.failures ?? []).map(attemptFailureFromJson),
    attemptFailure(error, attempt),
  ];
  const bury = (letter: DeadLetter) => deps.deadLetters.add([letter]);

  let event: Event;
  let handler: ResolvedHandler;
  let index = -1;
  try {
    event = dispatcher.decode(data.payload);
  } catch (error) {
    // Published by a worker that knew the class, read by one that does not.
    await bury(dispatcher.giveUp(data.payload, data.handler, undecodableReason(error), failuresWith(error)));
    return;
  }
  try {
    handler = dispatcher.find(event, data.handler);
    if (run.kind === 'retry') index = dispatcher.syncIndex(event, data.handler);
  } catch (error) {
    await bury(dispatcher.giveUp(data.payload, data.handler, 'unknown-handler', failuresWith(error)));
    return;
  }
  const verdict = dispatcher.verdict(handler, event);
  if (verdict !== 'run') {
    // Paused: parked (a retry parks the rest of its chain too). Blocked: dropped and counted.
    await dispatcher.hold(verdict, run.kind, event, data.payload, handler, attempt);
    if (verdict === 'pause' || run.kind === 'async') return;
  } else {
    try {
      await dispatcher.run(handler, event, attempt);
    } catch (error) {
      const failures = failuresWith(error);
      const reason = giveUpReason(error, run.attemptsMade + 1 >= run.attempts);
      if (reason === undefined) {
        await run.saveFailures(failures.map(attemptFailureToJson));
        throw error;
      }
      await bury(dispatcher.giveUp(data.payload, handler.name, reason, failures));
    }
  }
  if (run.kind === 'retry') {
    const rest = await dispatcher.runSyncChain(event, data.payload, index + 1);
    await Promise.all([
      rest.jobs.length > 0 ? deps.enqueue(rest.jobs) : undefined,
      rest.deadLetters.length > 0 ? deps.deadLetters.add(rest.deadLetters) : undefined,
    ]);
  }
}
