import { describeError, type Logger } from '../bus/logger.js';
import type { HandlerGate } from './handler-gate.js';
import { type HeldRun, parkedWork } from './parked-work.js';
import { releaseParkedWork } from './release-parked-work.js';
import { RuleSnapshot } from './rule-snapshot.js';
import type { RuleKind, RuleVerdict } from './scheduling-rule.js';
import type { SchedulingRuleStore } from './scheduling-rule-store.js';

/**
 * A worker's view of the scheduling rules: a copy reloaded from the store
 * every `rulesRefreshMs`, so asking about a handler run costs a Map lookup and
 * no round trip. Each reload also releases the parked work of handlers no
 * longer paused, which catches work parked by a worker whose copy was stale.
 */
export class SchedulingGate implements HandlerGate {
  private rules = RuleSnapshot.EMPTY;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private failing = false;
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

  /** Holds back a run the rules stop: parks it (`pause`) or counts it dropped (`block`). */
  async hold(verdict: RuleKind, run: HeldRun): Promise<void> {
    if (verdict === 'block') await this.store.countDropped(run.handler.name);
    else await this.store.park(parkedWork(run));
  }

  /** Loads the rules (rejecting if the store cannot be read), then reloads them every `rulesRefreshMs`. */
  async start(): Promise<void> {
    await this.refresh();
    this.schedule();
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
    clearTimeout(this.timer);
    this.onClose();
    await this.refreshing.catch(() => {});
  }

  private async reload(): Promise<void> {
    if (this.closed) return;
    this.rules = new RuleSnapshot(await this.store.listRules());
    await releaseParkedWork(this.store, this.rules);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), this.refreshMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.refresh();
      if (this.failing) this.logger.info({}, 'scheduling rules reloaded again');
      this.failing = false;
    } catch (error) {
      // Keep the last rules known; say so once per outage.
      if (!this.failing) {
        this.logger.warn(
          { error: describeError(error).message },
          'could not reload scheduling rules; keeping the last ones known',
        );
      }
      this.failing = true;
    }
    this.schedule();
  }
}
