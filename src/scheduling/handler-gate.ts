import type { HeldRun } from './parked-work.js';
import type { RuleKind, RuleVerdict } from './scheduling-rule.js';

/** What the dispatcher asks before each handler run. */
export interface HandlerGate {
  /** What the rules say about a run of `handler` for an event with key `handlingKey`; no I/O. */
  verdict(handler: string, handlingKey: string): RuleVerdict;
  /** Holds back a run the rules stop: parks it (`pause`) or counts it dropped (`block`). */
  hold(verdict: RuleKind, run: HeldRun): Promise<void>;
}

/** The gate of a dispatcher without rules: everything runs. */
export const OPEN_GATE: HandlerGate = {
  verdict: () => 'run',
  hold: async () => {},
};
