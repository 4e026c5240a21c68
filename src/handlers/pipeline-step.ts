import type { AttemptFailure } from '../dead-letters/attempt-failure.js';
import type { DeadLetter, DeadLetterReason } from '../dead-letters/dead-letter.js';
import type { Event } from '../events/event.js';
import type { ResolvedHandler } from './handler-table.js';

/** A handler run given up: keep `letter`. The run goes on with the next handler, if any. */
export interface DeadLetterStep {
  readonly op: 'dead-letter';
  /** The letter to keep. */
  readonly letter: DeadLetter;
}

/** A handler run a block rule stopped: count it dropped. The run goes on with the next handler. */
export interface DropStep {
  readonly op: 'drop';
  /** The handler whose run was dropped. */
  readonly handler: ResolvedHandler;
  /** The attempt it would have been. */
  readonly attempt: number;
}

/** Every handler the run covers is settled. */
export interface DoneStep {
  readonly op: 'done';
}

/** `handler` failed with attempts left: run it (and the chain after it) again in `delayMs`. */
export interface RetryStep {
  readonly op: 'retry';
  /** The handler that failed. */
  readonly handler: ResolvedHandler;
  /** Its index in the event's sync chain (0 for a one-handler run). */
  readonly index: number;
  /** The attempt that failed (attempts made so far). */
  readonly attempt: number;
  /** Every failed attempt so far, this one last. */
  readonly failures: readonly AttemptFailure[];
  /** The handler's backoff before the next attempt. */
  readonly delayMs: number;
  /** What the attempt failed with. */
  readonly error: Error;
}

/** `handler` is paused: hold the run (and the chain after it) at `handler`. */
export interface ParkStep {
  readonly op: 'park';
  /** The paused handler. */
  readonly handler: ResolvedHandler;
  /** Its index in the event's sync chain (0 for a one-handler run). */
  readonly index: number;
  /** The attempt it would have been. */
  readonly attempt: number;
  /** Its failed attempts so far. */
  readonly failures: readonly AttemptFailure[];
}

/** An ordered event's key stops here until an operator re-drives or skips it. */
export interface HaltStep {
  readonly op: 'halt';
  /** The handler that gave up; absent when the payload could not be decoded. */
  readonly handler?: string;
  /** Where in the event's sync chain the lane stands (0 for a one-handler lane). */
  readonly index: number;
  /** Attempts made of that handler, this one included. */
  readonly attempt: number;
  /** Their failures. */
  readonly failures: readonly AttemptFailure[];
  /** Why, as a dead letter would say it. */
  readonly reason: DeadLetterReason;
  /** The last error's message. */
  readonly error: string;
}

/** A step settled along the way; the run goes on after it. */
export type SettledStep = DeadLetterStep | DropStep;

/** Where the run stands at its end. */
export type NextStep = DoneStep | RetryStep | ParkStep | HaltStep;

/** Any step the pipeline decides. */
export type PipelineStep = SettledStep | NextStep;

/**
 * What one run of the pipeline decided, as data: the caller stores it (jobs,
 * dead letters, parked work, lane steps) and nothing else.
 */
export type PipelineOutcome = DecodedOutcome | UndecodableOutcome;

/** The outcome of a run whose payload was decoded. */
export interface DecodedOutcome {
  /** The decoded event. */
  readonly event: Event;
  /** For an `event` target, its async handlers, to fan out (a drain at once, a lane when done). */
  readonly fanOut: readonly ResolvedHandler[];
  /** Handler runs given up or dropped on the way, in order. */
  readonly settled: readonly SettledStep[];
  /** Where the run ends. */
  readonly next: NextStep;
}

/** The outcome of a run whose payload could not be decoded: no handler ran. */
export interface UndecodableOutcome {
  /** No event: the payload could not be decoded. */
  readonly event: undefined;
  /** Nothing to fan out: the event's handlers cannot be known. */
  readonly fanOut: readonly [];
  /** The payload's dead letter (unordered work). */
  readonly settled: readonly DeadLetterStep[];
  /** `halt` for an ordered event, else `done`. */
  readonly next: DoneStep | HaltStep;
}
