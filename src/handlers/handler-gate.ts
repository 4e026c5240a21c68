import type { AttemptFailure } from '../dead-letters/attempt-failure.js';
import type { Event } from '../events/event.js';
import type { HandlerJob } from './handler-job.js';
import type { ResolvedHandler } from './handler-table.js';

/**
 * What a rule does to the work it matches: `pause` parks it until resumed,
 * `block` drops it (counted, never run).
 */
export type RuleKind = 'pause' | 'block';

/** What the rules say about one handler run: run it, park it, or drop it. */
export type RuleVerdict = 'run' | RuleKind;

/** One handler run parked by a pause, to be enqueued again on resume. */
export interface HeldRun {
  /** `async`: one handler run; `retry`: the sync chain from this handler on. */
  readonly kind: HandlerJob['kind'];
  /** The decoded event. */
  readonly event: Event;
  /** The payload it was decoded from. */
  readonly payload: string;
  /** The handler held back. */
  readonly handler: ResolvedHandler;
  /** The attempt this run would have been (1 for a first run). */
  readonly attempt: number;
  /** The handler's failed attempts so far, kept so its dead letter lists every attempt. */
  readonly failures?: readonly AttemptFailure[];
}

/** What the handler pipeline asks before each handler run, and where held-back runs go. */
export interface HandlerGate {
  /** What the rules say about a run of `handler` for an event with key `handlingKey`; no I/O. */
  verdict(handler: string, handlingKey: string): RuleVerdict;
  /** Keeps a run a pause stopped, until its handler is resumed. */
  park(run: HeldRun): Promise<void>;
  /** Counts a run of `handler` a block dropped. */
  drop(handler: string): Promise<void>;
}

/** The gate of a worker without rules: everything runs. */
export const OPEN_GATE: HandlerGate = {
  verdict: () => 'run',
  park: async () => {},
  drop: async () => {},
};
