import type { RuleKind, RuleVerdict } from '../handlers/handler-gate.js';

export type { RuleKind, RuleVerdict };

/**
 * What a rule matches: every run of one handler, or every handler run for
 * events whose handling key is `handlingKey` or below it (`RECORD` matches
 * `RECORD.CREATE`).
 */
export type RuleTarget = { readonly handler: string } | { readonly handlingKey: string };

/** A rule in force. */
export interface SchedulingRule {
  /** What it does. */
  readonly kind: RuleKind;
  /** What it matches. */
  readonly target: RuleTarget;
  /** When it was set. */
  readonly since: Date;
}
