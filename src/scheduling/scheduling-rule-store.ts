import type { ParkedWork } from './parked-work.js';
import type { RuleKind, RuleTarget, SchedulingRule } from './scheduling-rule.js';

/**
 * The port where scheduling rules and the work they hold back live: a Redis
 * hash and lists on the Redis transport, maps in memory. Every process of
 * a bus sees the same store.
 */
export interface SchedulingRuleStore {
  /** Sets a rule; resolves to false if it was already set (its `since` is kept). */
  setRule(kind: RuleKind, target: RuleTarget, since: Date): Promise<boolean>;
  /** Removes a rule; resolves to false if there was none. */
  removeRule(kind: RuleKind, target: RuleTarget): Promise<boolean>;
  /** Every rule in force, oldest first. */
  listRules(): Promise<SchedulingRule[]>;
  /** Appends work to the parked list of its handler. */
  park(work: ParkedWork): Promise<void>;
  /**
   * Enqueues the parked work of `handler`, oldest first, for as long as
   * `releasable` holds, and removes each item only after it was enqueued, so
   * a process dying in between leaves it parked. Unparking one handler from
   * several processes at once releases each item once. Resolves to how many
   * were released.
   */
  unpark(handler: string, releasable: (work: ParkedWork) => boolean): Promise<number>;
  /** The handlers that have parked work. */
  parkedHandlers(): Promise<string[]>;
  /** Parked items of `handler`, or of every handler. */
  parkedCount(handler?: string): Promise<number>;
  /** Counts one run of `handler` dropped by a block. */
  countDropped(handler: string): Promise<void>;
  /** Runs of `handler` (or of every handler) dropped by blocks so far. */
  droppedCount(handler?: string): Promise<number>;
}
