import { attemptFailureToJson } from '../dead-letters/attempt-failure.js';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import { InternalError } from '../support/errors/internal.error.js';
import type { ScheduledRetry } from './bus-observer.js';
import { type HandlerGate, OPEN_GATE } from './handler-gate.js';
import type { HandlerJob } from './handler-job.js';
import type { HandlerPipeline } from './handler-pipeline.js';
import type { ResolvedHandler } from './handler-table.js';
import type { PipelineOutcome, RetryStep } from './pipeline-step.js';

/** What handling one event (or part of its sync chain) left to store. */
export interface DrainedEvent {
  /** Async handler jobs and the retry jobs of sync handlers that failed with attempts left. */
  readonly jobs: HandlerJob[];
  /** Work given up: handlers out of attempts, a payload that cannot be decoded. */
  readonly deadLetters: DeadLetter[];
  /**
   * The retry a sync handler's failure scheduled, if any (its job is among
   * `jobs`): `onRetry` is told of it once that job is enqueued.
   */
  readonly retried?: ScheduledRetry;
}

/** An unordered run's steps as its transport stores them. */
export interface StoredSteps extends DrainedEvent {
  /**
   * The retry of the job's own handler: the transport runs the job again
   * after its backoff (`retried` tells of it once its failures are saved).
   */
  readonly again?: RetryStep;
}

/**
 * The unordered side of the handler pipeline: hands a drain's events and
 * handler jobs to the {@link HandlerPipeline} and turns its steps into what
 * the transport stores (jobs, dead letters) and the scheduling rules keep
 * (parked and dropped runs).
 */
export class Dispatcher {
  constructor(
    /** The one decision of every handler run. */
    readonly pipeline: HandlerPipeline,
    private readonly rules: HandlerGate = OPEN_GATE,
  ) {}

  /**
   * Handles one event read by a drain, delivered `deliveries` times so far
   * (this one included): runs its sync chain and returns the jobs to enqueue
   * (its async handlers, and a retry job if a sync handler failed with
   * attempts left) and the dead letters to keep.
   */
  async drainOne(payload: string, deliveries = 1): Promise<DrainedEvent> {
    const outcome = await this.pipeline.run({
      payload,
      target: { kind: 'event', from: 0 },
      attempt: 1,
      failures: [],
      deliveries,
    });
    const { event } = outcome;
    const fanOut = event === undefined ? [] : outcome.fanOut.map((h) => asyncJob(event.id, payload, h));
    const stored = await this.store(outcome, payload, 'retry');
    return {
      jobs: [...fanOut, ...stored.jobs],
      deadLetters: stored.deadLetters,
      ...(stored.retried === undefined ? {} : { retried: stored.retried }),
    };
  }

  /**
   * Stores an unordered run's steps. Parked and dropped runs go to the
   * scheduling rules now (`kind`: what a parked run is released as, one
   * handler or a sync chain from it on); a retry becomes a retry job, unless
   * it is the retry of `own`, the handler of the job being run, which comes
   * back as `again`.
   */
  async store(
    outcome: PipelineOutcome,
    payload: string,
    kind: HandlerJob['kind'],
    own?: string,
  ): Promise<StoredSteps> {
    if (outcome.event === undefined) {
      if (outcome.next.op === 'halt') throw unorderedHalt();
      return { jobs: [], deadLetters: outcome.settled.map((step) => step.letter) };
    }
    const { event, next } = outcome;
    const deadLetters: DeadLetter[] = [];
    const jobs: HandlerJob[] = [];
    for (const step of outcome.settled) {
      if (step.op === 'dead-letter') deadLetters.push(step.letter);
      else await this.rules.drop(step.handler.name);
    }
    switch (next.op) {
      case 'done':
        return { jobs, deadLetters };
      case 'park':
        await this.rules.park({
          kind,
          event,
          payload,
          handler: next.handler,
          attempt: next.attempt,
          failures: next.failures,
        });
        this.pipeline.observer.notify('onParked', {
          event,
          handler: next.handler.name,
          attempt: next.attempt,
        });
        return { jobs, deadLetters };
      case 'retry': {
        // Told to onRetry by whoever stores it, once the retry is stored (as onParked after its park).
        const retried: ScheduledRetry = {
          event,
          handler: next.handler.name,
          attempt: next.attempt,
          delayMs: next.delayMs,
          error: next.error,
        };
        if (next.handler.name === own) return { jobs, deadLetters, again: next, retried };
        jobs.push(retryJob(event.id, payload, next));
        return { jobs, deadLetters, retried };
      }
      case 'halt':
        throw unorderedHalt();
    }
  }
}

/** The job of one async handler of an event: its id is stable, so a redelivery adds it once. */
export function asyncJob(eventId: string, payload: string, handler: ResolvedHandler): HandlerJob {
  return {
    kind: 'async',
    jobId: `${eventId}.${handler.name}`,
    payload,
    handler: handler.name,
    attempts: handler.attempts,
    backoff: handler.backoff,
    delayMs: 0,
  };
}

/**
 * The job that runs a failed sync handler again after its backoff and then
 * the rest of its chain, with the failures so far.
 */
export function retryJob(eventId: string, payload: string, step: RetryStep): HandlerJob {
  const { handler, attempt } = step;
  return {
    kind: 'retry',
    jobId: `${eventId}.retry.${handler.name}.${attempt}`,
    payload,
    handler: handler.name,
    attempts: handler.attempts - attempt,
    backoff: handler.backoff,
    delayMs: step.delayMs,
    firstAttempt: attempt + 1,
    failures: step.failures.map(attemptFailureToJson),
  };
}

// Only work that passes `ordered` can halt: reaching this is a bug in commitbus.
function unorderedHalt(): Error {
  return new InternalError('an unordered handler run decided to halt; only ordered work can halt');
}
