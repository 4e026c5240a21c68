import type { Logger } from '../support/logger.js';
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
 */
export class SchedulingRules {
  private readonly gates = new Set<SchedulingGate>();

  constructor(
    private readonly store: SchedulingRuleStore,
    private readonly targets: KnownTargets,
    private readonly refreshMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Pauses: the target's work is parked, not run, and delivered on
   * {@link SchedulingRules.resume} in the order it was parked. Resolves to
   * false if it was paused already.
   */
  pause(target: RuleTarget): Promise<boolean> {
    return this.set('pause', target);
  }

  /**
   * Lifts a pause. Each worker, once it sees the change (at once in this
   * process, within `rulesRefreshMs` in others), enqueues the parked work it
   * may now run again, oldest first. Resolves to false if it was not paused.
   */
  resume(target: RuleTarget): Promise<boolean> {
    return this.remove('pause', target);
  }

  /**
   * Blocks (an emergency stop): the target's work is dropped and counted,
   * never run. A blocked sync handler is skipped and its chain goes on.
   * Block wins over pause. Resolves to false if it was blocked already.
   */
  block(target: RuleTarget): Promise<boolean> {
    return this.set('block', target);
  }

  /**
   * Lifts a block; work dropped meanwhile stays dropped. Work parked before
   * the block stays parked until the target is neither paused nor blocked.
   * Resolves to false if it was not blocked.
   */
  unblock(target: RuleTarget): Promise<boolean> {
    return this.remove('block', target);
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
