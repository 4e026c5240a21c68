import type { HandlerJob } from '../../handlers/handler-job.js';
import type { ParkedWork } from '../../scheduling/parked-work.js';
import { compareRules, parseRuleId, ruleId } from '../../scheduling/rule-id.js';
import type { RuleKind, RuleTarget, SchedulingRule } from '../../scheduling/scheduling-rule.js';
import type { SchedulingRuleStore } from '../../scheduling/scheduling-rule-store.js';

/**
 * `SchedulingRuleStore` in this process's memory, shared by every bus
 * built on the same memory transport. Nothing survives a restart. Released
 * work goes to the transport's handler job queue, which keeps it until a
 * worker starts when none runs (the port's contract).
 */
export class MemorySchedulingRuleStore implements SchedulingRuleStore {
  /** `since` of each rule by its id, in epoch milliseconds. */
  private readonly rules = new Map<string, number>();
  private readonly parked = new Map<string, ParkedWork[]>();
  private readonly dropped = new Map<string, number>();
  /** Handlers whose release is under way: one at a time, as on Redis. */
  private readonly releasing = new Set<string>();

  /** @param enqueue - adds released work to the handler job queue, whether or not a worker runs. */
  constructor(private readonly enqueue: (jobs: HandlerJob[]) => Promise<void>) {}

  async setRule(kind: RuleKind, target: RuleTarget, since: Date): Promise<boolean> {
    const id = ruleId(kind, target);
    if (this.rules.has(id)) return false;
    this.rules.set(id, since.getTime());
    return true;
  }

  async removeRule(kind: RuleKind, target: RuleTarget): Promise<boolean> {
    return this.rules.delete(ruleId(kind, target));
  }

  async listRules(): Promise<SchedulingRule[]> {
    const rules: SchedulingRule[] = [];
    for (const [id, since] of this.rules) {
      const parsed = parseRuleId(id);
      if (parsed !== undefined) rules.push({ ...parsed, since: new Date(since) });
    }
    return rules.sort(compareRules);
  }

  async park(work: ParkedWork): Promise<void> {
    const list = this.parked.get(work.job.handler);
    if (list === undefined) this.parked.set(work.job.handler, [work]);
    else list.push(work);
  }

  async unpark(handler: string, releasable: (work: ParkedWork) => boolean): Promise<number> {
    const list = this.parked.get(handler);
    if (list === undefined || this.releasing.has(handler)) return 0;
    let count = 0;
    while (count < list.length && releasable(list[count] as ParkedWork)) count++;
    if (count === 0) return 0;
    this.releasing.add(handler);
    try {
      await this.enqueue(list.slice(0, count).map((work) => work.job));
      // Work parked while the queue took these was appended after them.
      list.splice(0, count);
      if (list.length === 0) this.parked.delete(handler);
      return count;
    } finally {
      this.releasing.delete(handler);
    }
  }

  async parkedHandlers(): Promise<string[]> {
    return [...this.parked.keys()];
  }

  async parkedCount(handler?: string): Promise<number> {
    if (handler !== undefined) return this.parked.get(handler)?.length ?? 0;
    return [...this.parked.values()].reduce((sum, list) => sum + list.length, 0);
  }

  async countDropped(handler: string): Promise<void> {
    this.dropped.set(handler, (this.dropped.get(handler) ?? 0) + 1);
  }

  async droppedCount(handler?: string): Promise<number> {
    if (handler !== undefined) return this.dropped.get(handler) ?? 0;
    return [...this.dropped.values()].reduce((sum, n) => sum + n, 0);
  }
}
