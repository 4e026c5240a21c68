import type { ParkedWork } from './parked-work.js';
import type { RuleKind, RuleTarget, SchedulingRule } from './scheduling-rule.js';

/**
 * The port where scheduling rules and the work they hold back live: a Redis
 * hash and lists on the Redis transport, rows on the SQL one. Every process of
 * a bus sees the same store: what a call wrote, every later call of any
 * process reads.
 *
 * What every adapter keeps (test/conformance/scheduling-rule-store.conformance.test.ts):
 *
 * - **Rules.** At most one rule per kind and target (its `ruleId`); a rule
 *   keeps the `since` it was first set with, to the millisecond, until it is
 *   removed. Each rule write is atomic.
 * - **Parked work.** One list per handler, in the order the `park` calls
 *   completed, oldest first. A handler is among {@link parkedHandlers} exactly
 *   while its list holds an item.
 * - **Release means enqueued.** {@link unpark} hands the work to the bus's
 *   handler job queue (the transport's `HandlerJobQueue`), whether or not a
 *   worker runs now; a worker started later, in any process, runs it. The
 *   store never runs work, and never asks whether a worker runs.
 * - **Nothing is lost.** An item leaves its list only after the job queue
 *   took it; a release that fails, or a process that dies mid-release, leaves
 *   the items not yet taken parked, in their order.
 * - **Nothing runs twice.** Each item is enqueued by one release, under its
 *   own job id (`ParkedWork.job.jobId`). The one exception: a Redis release
 *   that stalled past its lock (10 s), whose items the next holder enqueues
 *   again under the same ids; the job queue adds those once, so they run
 *   again only if they had already finished.
 *
 * A call that rejects (on Redis with `TransportUnavailableError` while Redis
 * cannot be reached) changed nothing, but for what {@link unpark} says.
 */
export interface SchedulingRuleStore {
  /** Sets a rule; resolves to false, changing nothing, if it was already set (its `since` is kept). */
  setRule(kind: RuleKind, target: RuleTarget, since: Date): Promise<boolean>;
  /** Removes a rule; resolves to false if there was none. Parked work is not touched. */
  removeRule(kind: RuleKind, target: RuleTarget): Promise<boolean>;
  /**
   * Every rule in force: oldest `since` first, rules set in the same
   * millisecond by `ruleId` (`block` before `pause`, handler rules before key
   * rules, then by name), so every adapter and every call lists them alike.
   * Each `since` is a new `Date`.
   */
  listRules(): Promise<SchedulingRule[]>;
  /** Appends work to the end of its handler's parked list (`work.job.handler`), atomically. */
  park(work: ParkedWork): Promise<void>;
  /**
   * Releases the parked work of `handler`: from the oldest item on, for as
   * long as `releasable` holds (asked of each item in order, never of one
   * after the first it refuses), enqueues the items into the handler job
   * queue in their parked order, whether or not a worker runs, and removes
   * each from the list only after it was enqueued. Work parked meanwhile
   * joins the end of the list: this call may release it too, or leave it to
   * the next.
   *
   * One release of a handler runs at a time across the bus's processes: a
   * call that finds another under way resolves to 0 at once and leaves the
   * work to it, so unparking one handler from several processes at once
   * enqueues each item once.
   *
   * Resolves to how many items this call released (0 when none may go, the
   * list is empty, or another release holds it). Rejects when the job queue
   * refused the work (Redis: in batches of 100, the batches before it stay
   * released) or a stored item cannot be read (Redis:
   * `MalformedParkedWorkError`); what was not enqueued stays parked.
   */
  unpark(handler: string, releasable: (work: ParkedWork) => boolean): Promise<number>;
  /**
   * The handlers whose parked list holds at least one item, each once, in
   * no particular order. A handler whose last item was released is gone.
   */
  parkedHandlers(): Promise<string[]>;
  /** Items parked for `handler` (0 for a handler with none), or for every handler. */
  parkedCount(handler?: string): Promise<number>;
  /** Counts one run of `handler` dropped by a block, atomically. */
  countDropped(handler: string): Promise<void>;
  /** Runs of `handler` (0 for one never dropped), or of every handler, dropped by blocks so far; never reset by the store. */
  droppedCount(handler?: string): Promise<number>;
}
