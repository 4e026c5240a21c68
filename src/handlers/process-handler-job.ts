import {
  type AttemptFailureJson,
  attemptFailureFromJson,
  attemptFailureToJson,
} from '../dead-letters/attempt-failure.js';
import type { Dispatcher } from './dispatcher.js';
import type { HandlerJob } from './handler-job.js';
import { type DeadLetterSink, observedDeadLetters } from './observed-dead-letters.js';

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
  /**
   * How many times the job has been handed to a worker, this time included,
   * counting only deliveries whose worker died or stalled (a BullMQ job's
   * stalls plus one). Past `maxDeliveries` the job is given up as `crashed`.
   * @defaultValue 1
   */
  readonly deliveries?: number;
  /** Stores the failures so far with the job, before it is run again. */
  saveFailures(failures: readonly AttemptFailureJson[]): Promise<void>;
  /**
   * Told the wait before the job's next run, as the pipeline decided it (the
   * handler's backoff at the attempt that failed), just before the error that
   * asks for that run is thrown. A run that throws without telling it (a store
   * failed) waits `jobRetryDelay`.
   */
  readonly retryIn?: (delayMs: number) => void;
}

/** What running handler jobs needs. */
export interface HandlerJobDeps {
  /** Runs handlers. */
  readonly dispatcher: Dispatcher;
  /** Adds jobs (a retry job's chain may fail further on). */
  readonly enqueue: (jobs: HandlerJob[]) => Promise<void>;
  /** Where work that is given up goes. */
  readonly deadLetters: DeadLetterSink;
}

/**
 * Runs one async-handler or retry job through the handler pipeline. When the
 * job's own handler fails with attempts left, its failures are saved with the
 * job, the wait is told to `run.retryIn` and the error (always an `Error`) is
 * thrown, so the transport runs it again after that wait. Anything else the pipeline decided (dead letters,
 * retry jobs further down a sync chain, parked and dropped runs) is stored,
 * and the job completes.
 */
export async function processHandlerJob(run: HandlerJobRun, deps: HandlerJobDeps): Promise<void> {
  const { data } = run;
  const first = data.firstAttempt ?? 1;
  const outcome = await deps.dispatcher.pipeline.run({
    payload: data.payload,
    target:
      run.kind === 'retry'
        ? { kind: 'chain', handler: data.handler }
        : { kind: 'handler', handler: data.handler },
    attempt: first + run.attemptsMade,
    lastAttempt: first - 1 + run.attempts,
    failures: (data.failures ?? []).map(attemptFailureFromJson),
    deliveries: run.deliveries ?? 1,
  });
  const stored = await deps.dispatcher.store(outcome, data.payload, run.kind, data.handler);
  await Promise.all([
    stored.jobs.length > 0 ? deps.enqueue(stored.jobs) : undefined,
    stored.deadLetters.length > 0
      ? observedDeadLetters(deps.deadLetters, deps.dispatcher.pipeline.observer).add(stored.deadLetters)
      : undefined,
  ]);
  if (stored.again !== undefined) {
    // The attempt history travels with the job, to its next run and into its dead letter.
    await run.saveFailures(stored.again.failures.map(attemptFailureToJson));
  }
  if (stored.retried !== undefined) deps.dispatcher.pipeline.observer.notify('onRetry', stored.retried);
  if (stored.again !== undefined) {
    run.retryIn?.(stored.again.delayMs);
    throw stored.again.error;
  }
}
