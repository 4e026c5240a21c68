import { describeError, type Logger } from '../support/logger.js';
import type { BusObserver } from './bus-observer.js';

/** The hooks of a {@link BusObserver}. */
type Hook = keyof BusObserver;

/** What a hook is called with. */
type HookArgument<H extends Hook> = Parameters<NonNullable<BusObserver[H]>>[0];

/**
 * A bus's observers (its options' hooks, its metrics, anything added by
 * `bus.observe()`) behind one safe call: each hook runs synchronously, and
 * one that throws, or returns a promise that rejects, is logged and never
 * reaches the work it observes.
 */
export class ObserverSet {
  private readonly observers = new Set<BusObserver>();

  /** @param logger - where a hook that throws is logged. */
  constructor(private readonly logger: Logger) {}

  /** Adds `observer`; returns the function that removes it. */
  add(observer: BusObserver): () => void {
    this.observers.add(observer);
    return () => {
      this.observers.delete(observer);
    };
  }

  /** Whether any observer has `hook` (to skip work only a hook needs). */
  has(hook: Hook): boolean {
    for (const observer of this.observers) if (observer[hook] !== undefined) return true;
    return false;
  }

  /** Calls `hook` of every observer that has it with `argument`. */
  notify<H extends Hook>(hook: H, argument: HookArgument<H>): void {
    for (const observer of this.observers) {
      const fn = observer[hook] as ((value: HookArgument<H>) => unknown) | undefined;
      if (fn === undefined) continue;
      try {
        const result = fn.call(observer, argument);
        // Typed as returning void, an async hook still returns a promise: its rejection is logged too.
        if (result instanceof Promise) result.catch((error: unknown) => this.failed(hook, error));
      } catch (error) {
        this.failed(hook, error);
      }
    }
  }

  private failed(hook: Hook, error: unknown): void {
    this.logger.error(
      { hook, error: describeError(error).message },
      `${hook} threw; what it observed went on unchanged`,
    );
  }
}
