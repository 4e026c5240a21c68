import type { Logger } from '../support/logger.js';
import type { OperatorOrigin } from '../support/operator-action-log.js';
import type { OperatorAudit } from '../support/operator-audit.js';
import type { KnownTargets } from './known-targets.js';
import { SchedulingGate } from './scheduling-gate.js';
import type { RuleKind, RuleTarget, SchedulingRule } from './scheduling-rule.js';
import type { SchedulingRuleStore } from './scheduling-rule-store.js';

/**
 * `bus.rules`: pause, resume, block and unblock handlers, from any process of
 * the bus. Every worker honours a change within `rulesRefreshMs` (workers in
 * this process at once).
 *
 * A target is `{ handler: 'notifications.send' }` or `{ handlingKey: 'RECORD' }`;
 * a key rule applies to every handler run for events whose key is that key or
 * below it. Rules stay until removed (on Redis they survive restarts).
 *
 * Each change is recorded in `bus.audit` (`rules.pause`, ...) with `by` (who
 * asks; by default source `api`, this process's `user@host`), its target
 * (`handler:<name>` or `key:<KEY>`) and count 1 if it changed a rule, else 0.
 */
export class SchedulingRules {
  private readonly gates = new Set<SchedulingGate>();

  constructor(
    private readonly store: SchedulingRuleStore,
    private readonly targets: KnownTargets,
    private readonly refreshMs: number,
    private readonly logger: Logger,
    private readonly audit?: OperatorAudit,
  ) {}

  /**
   * Pauses: the target's work is parked, not run, and delivered on
   * {@link SchedulingRules.resume} in the order it was parked. Resolves to
   * false if it was paused already.
   */
  pause(target: RuleTarget, by?: OperatorOrigin): Promise<boolean> {
    return this.audited('pause', target, by, () => this.set('pause', target));
  }

  /**
   * Lifts a pause. Each worker, once it sees the change (at once in this
   * process, within `rulesRefreshMs` in others), enqueues the parked work it
   * may now run again, oldest first. Resolves to false if it was not paused.
   */
  resume(target: RuleTarget, by?: OperatorOrigin): Promise<boolean> {
    return this.audited('resume', target, by, () => this.remove('pause', target));
  }

  /**
   * Blocks (an emergency stop): the target's work is dropped and counted,
   * never run. A blocked sync handler is skipped and its chain goes on.
   * Block wins over pause. Resolves to false if it was blocked already.
   */
  block(target: RuleTarget, by?: OperatorOrigin): Promise<boolean> {
    return this.audited('block', target, by, () => this.set('block', target));
  }

  /**
   * Lifts a block; work dropped meanwhile stays dropped. Work parked before
   * the block stays parked until the target is neither paused nor blocked.
   * Resolves to false if it was not blocked.
   */
  unblock(target: RuleTarget, by?: OperatorOrigin): Promise<boolean> {
    return this.audited('unblock', target, by, () => this.remove('block', target));
  }

  /** The rules in force, oldest first (set in one millisecond: by kind, `block` first, then target). */
  list(): Promise<SchedulingRule[]> {
    return this.store.listRules();
  }

  /** Runs of `handler` (or of every handler) dropped by blocks so far. */
  async blockedCount(handler?: string): Promise<number> {
    return this.store.droppedCount(handler === undefined ? undefined : this.targets.handler(handler));
  }

  /**
   * Work of `handler` (or of every handler) parked by pauses. Parked work
   * counts as idle for `bus.whenIdle()`: nothing runs it until resumed.
   */
  async parkedCount(handler?: string): Promise<number> {
    return this.store.parkedCount(handler === undefined ? undefined : this.targets.handler(handler));
  }

  /**
   * @internal Starts the rule copy a worker of this process consults; closed
   * with the worker.
   */
  async openGate(): Promise<SchedulingGate> {
    const gate: SchedulingGate = new SchedulingGate(this.store, this.refreshMs, this.logger, () =>
      this.gates.delete(gate),
    );
    await gate.start();
    this.gates.add(gate);
    return gate;
  }

  private audited(
    verb: string,
    target: RuleTarget,
    by: OperatorOrigin | undefined,
    work: () => Promise<boolean>,
  ): Promise<boolean> {
    if (this.audit === undefined) return work();
    const named = 'handler' in target ? `handler:${target.handler}` : `key:${target.handlingKey}`;
    return this.audit.run(
      { action: `rules.${verb}`, target: named, by, countOf: (changed) => (changed ? 1 : 0) },
      work,
    );
  }

  private async set(kind: RuleKind, target: RuleTarget): Promise<boolean> {
    const added = await this.store.setRule(kind, this.targets.check(target), new Date());
    await this.changed();
    return added;
  }

  private async remove(kind: RuleKind, target: RuleTarget): Promise<boolean> {
    const removed = await this.store.removeRule(kind, this.targets.check(target));
    await this.changed();
    return removed;
  }

  // Workers of this process reload at once. Parked work is released by
  // workers only, each after reloading: released by a process whose workers
  // still held the pause, it would only be parked again.
  private async changed(): Promise<void> {
    await Promise.all([...this.gates].map((gate) => gate.refresh()));
  }
}
