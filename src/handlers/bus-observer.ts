import type { DeadLetter, DeadLetterReason } from '../dead-letters/dead-letter.js';
import type { Event } from '../events/event.js';

/** A handler run that succeeded. */
export interface HandledRun {
  /** The event it ran for. */
  readonly event: Event;
  /** The handler's name. */
  readonly handler: string;
  /** Which attempt it was (1 for a first run). */
  readonly attempt: number;
  /** How long the handler took, in milliseconds (its idempotency record included). */
  readonly durationMs: number;
}

/**
 * What follows a failed run: `retry` (it runs again after its backoff),
 * `dead-letter` (it was given up and kept as a dead letter), `halt` (it was
 * given up and its ordered key halts, under `afterLastAttempt: 'halt'`).
 */
export type AfterFailure = 'retry' | 'dead-letter' | 'halt';

/** A handler run that threw or timed out. */
export interface FailedRun {
  /** The event it ran for. */
  readonly event: Event;
  /** The handler's name. */
  readonly handler: string;
  /** Which attempt failed (1 for a first run). */
  readonly attempt: number;
  /** How long the run took before it failed, in milliseconds. */
  readonly durationMs: number;
  /** What it failed with (a value thrown that is not an `Error` comes wrapped in `ThrownValueError`). */
  readonly error: Error;
  /** What happens next. */
  readonly next: AfterFailure;
  /** Why it was given up; absent when it runs again. */
  readonly reason?: DeadLetterReason;
}

/** A failed handler run that runs again after its backoff. */
export interface ScheduledRetry {
  /** The event it runs for. */
  readonly event: Event;
  /** The handler's name. */
  readonly handler: string;
  /** The attempt that failed; the next one is `attempt + 1`. */
  readonly attempt: number;
  /** The backoff before the next attempt, in milliseconds. */
  readonly delayMs: number;
  /** What the attempt failed with. */
  readonly error: Error;
}

/**
 * A handler run a pause rule held: unordered work is parked until
 * `bus.rules.resume`; an ordered lane waits in place (reported once when it
 * starts waiting, by the worker that holds it).
 */
export interface ParkedRun {
  /** The event it would have run for. */
  readonly event: Event;
  /** The paused handler. */
  readonly handler: string;
  /** The attempt it would have been. */
  readonly attempt: number;
}

/**
 * What a bus tells its observers, in the process it happens in: the options
 * of `createEventBus` (`onPublished`, `onHandled`, ...) and `bus.observe()`
 * take one. Every hook is optional and called synchronously, as it happens; a
 * hook that throws (or returns a promise that rejects) is logged and changes
 * nothing. Keep hooks fast: a slow one holds the worker (start slow work and
 * return).
 *
 * A hook reports what this process decided. If storing that decision fails
 * (the transport is down), the work is delivered again and its hooks fire
 * again for the new run.
 */
export interface BusObserver {
  /**
   * Called after events were published (for logging or metrics): directly,
   * after a unit of work's commit, re-driven, or republished by the outbox
   * relay. An error it throws is logged; the events stay published.
   */
  onPublished?: (events: readonly Event[]) => void;
  /** Called after a handler run succeeded, with its duration. */
  onHandled?: (run: HandledRun) => void;
  /**
   * Called after a handler run threw or timed out, with what happens next
   * (`retry`, `dead-letter`, `halt`). Work a dying worker never finished is
   * given up as `crashed` without a run: it is reported by `onDeadLetter`
   * (or halts its key) only.
   */
  onHandlerFailed?: (run: FailedRun) => void;
  /** Called when a failed handler run is scheduled to run again, with its backoff. */
  onRetry?: (retry: ScheduledRetry) => void;
  /** Called when a pause rule holds a handler run (see {@link ParkedRun}). */
  onParked?: (run: ParkedRun) => void;
  /**
   * Called after a worker stored a dead letter: a handler given up, a payload
   * that cannot be decoded, work delivered too often (`crashed`), an event or
   * job the transport could not take (`undeliverable`), an ordered event an
   * operator skipped. The router's webhook letters are counted by its own
   * metrics.
   */
  onDeadLetter?: (letter: DeadLetter) => void;
}
