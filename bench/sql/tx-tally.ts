import { nowMs } from '../load.js';

/**
 * Commit and handler times of units of work, keyed by unit id: the producer
 * stamps the moment its COMMIT resolved, the handler the moment it ran. A
 * handler may run before the producer's await resumed, so latencies are
 * taken once both are known, clamped at 0.
 */
export class TxTally {
  private readonly commits = new Map<number, number>();
  private readonly handled = new Map<number, number>();
  /** Handler calls for a unit already handled (a redelivery). */
  duplicates = 0;
  private waiter: { target: number; resolve: () => void } | undefined;

  /** Handled units since the last reset. */
  get count(): number {
    return this.handled.size;
  }

  /** The producer of `unit` saw its COMMIT resolve. */
  committed(unit: number): void {
    this.commits.set(unit, nowMs());
  }

  /** A handler ran for `unit`. */
  handle(unit: number): void {
    if (this.handled.has(unit)) {
      this.duplicates++;
      return;
    }
    this.handled.set(unit, nowMs());
    if (this.waiter !== undefined && this.handled.size >= this.waiter.target) {
      const { resolve } = this.waiter;
      this.waiter = undefined;
      resolve();
    }
  }

  /** Forgets everything: a new run. */
  reset(): void {
    this.commits.clear();
    this.handled.clear();
    this.duplicates = 0;
  }

  /** Commit-to-handler time of every handled unit whose commit was stamped, in ms, at least 0. */
  latenciesMs(): number[] {
    const out: number[] = [];
    for (const [unit, at] of this.handled) {
      const committed = this.commits.get(unit);
      if (committed !== undefined) out.push(Math.max(0, at - committed));
    }
    return out;
  }

  /** Resolves once `target` distinct units were handled since the last reset. */
  waitFor(target: number, timeoutMs: number): Promise<void> {
    if (this.handled.size >= target) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(
          new Error(
            `only ${this.handled.size} of ${target} units of work were handled within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.waiter = {
        target,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }
}
