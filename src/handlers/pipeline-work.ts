import type { AttemptFailure } from '../dead-letters/attempt-failure.js';
import type { Event } from '../events/event.js';
import type { EventOrdering } from '../events/event-ordering.js';
import type { AfterLastAttempt } from '../events/ordering-policy.js';

/** The handlers one run of the pipeline covers. */
export type WorkTarget =
  /**
   * An event: its sync chain from index `from` (a drain: 0; a sync lane: where
   * it stopped). Its async handlers come back as the outcome's `fanOut`.
   */
  | { readonly kind: 'event'; readonly from: number }
  /** The sync chain from the handler named `handler` on (a retry job). */
  | { readonly kind: 'chain'; readonly handler: string }
  /** One handler (an async job, an async lane, a re-driven dead letter). */
  | { readonly kind: 'handler'; readonly handler: string };

/** What an ordered event's lane adds to its work. */
export interface OrderedWork {
  /** Where the event stands in its key; set on the event before any handler runs. */
  readonly ordering: EventOrdering;
  /** What the key does when a handler gives up: the `afterLastAttempt` of the event's class. */
  readonly afterLastAttempt: (event: Event) => AfterLastAttempt;
}

/**
 * Handler work as any path hands it to the pipeline: the payload, which
 * handlers, and where the run stands.
 */
export interface PipelineWork {
  /** The serialized event. */
  readonly payload: string;
  /** Which handlers to run. */
  readonly target: WorkTarget;
  /** The attempt this run is of the first handler it runs: 1 for a first run. */
  readonly attempt: number;
  /**
   * The number of the first handler's last attempt. A job's own attempts
   * decide it (its transport stops retrying there), in case `EVENT_HANDLERS`
   * changed since the job was queued.
   * @defaultValue the handler's `attempts`
   */
  readonly lastAttempt?: number;
  /** The first handler's failed attempts so far, first to last. */
  readonly failures: readonly AttemptFailure[];
  /**
   * How many times this work has been handed to a worker, this time
   * included: a stream entry's delivery count, a job's stalls plus one, a
   * lane event's takeovers plus one. Past `maxDeliveries` it is not run.
   */
  readonly deliveries: number;
  /** Set for an ordered event: a give-up may halt its key instead. */
  readonly ordered?: OrderedWork;
}
