import type { HandlerGate } from '../handlers/handler-gate.js';
import type { Logger } from '../support/logger.js';
import { PeriodicTask } from '../support/periodic-task.js';
import { type HeldRun, parkedWork } from './parked-work.js';
import { releaseParkedWork } from './release-parked-work.js';
import { RuleSnapshot } from './rule-snapshot.js';
import type { RuleVerdict } from './scheduling-rule.js';
import type { SchedulingRuleStore } from './scheduling-rule-store.js';

/**
 * A worker's view of the scheduling rules: a copy reloaded from the store
 * every `rulesRefreshMs`, so asking about a handler run costs a Map lookup and
 * no round trip. Each reload also releases the parked work of handlers no
 * longer paused, which catches work parked by a worker whose copy was stale.
 */
export class SchedulingGate implements HandlerGate {
  private rules = RuleSnapshot.EMPTY;
  private reloads: PeriodicTask | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly store: SchedulingRuleStore,
    private readonly refreshMs: number,
    private readonly logger: Logger,
    private readonly onClose: () => void = () => {},
  ) {}

  /** What the rules say about a run of `handler` for an event with key `handlingKey`. */
  verdict(handler: string, handlingKey: string): RuleVerdict {
    return this.rules.verdict(handler, handlingKey);
  }

  /** Keeps a run a pause stopped as parked work, released on resume. */
  park(run: HeldRun): Promise<void> {
    return this.store.park(parkedWork(run));
  }

  /** Counts a run of `handler` a block dropped. */
  drop(handler: string): Promise<void> {
    return this.store.countDropped(handler);
  }

  /** Loads the rules (rejecting if the store cannot be read), then reloads them every `rulesRefreshMs`. */
  async start(): Promise<void> {
    await this.refresh();
    // On failure the last rules known stay in force; the task logs the outage.
    this.reloads = new PeriodicTask(
      'scheduling rules reload',
      this.refreshMs,
      () => this.refresh(),
      this.logger,
    );
    this.reloads.start({ now: false });
  }

  /**
   * Reloads the rules now and releases parked work they no longer pause.
   * Calls run one after another, so each sees changes made before it.
   */
  refresh(): Promise<void> {
    const next = this.refreshing.catch(() => {}).then(() => this.reload());
    this.refreshing = next;
    return next;
  }

  /** Stops reloading; waits for a reload under way. */
  async close(): Promise<void> {
    this.closed = true;
    await this.reloads?.stop();
    this.onClose();
    await this.refreshing.catch(() => {});
  }

  private async reload(): Promise<void> {
    if (this.closed) return;
    this.rules = new RuleSnapshot(await this.store.listRules());
    await releaseParkedWork(this.store, this.rules);
  }
}
