/**
 * What a rule does to the work it matches: `pause` parks it until resumed,
 * `block` drops it (counted, never run).
 */
export type RuleKind = 'pause' | 'block';

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

/** What the rules say about one handler run: run it, park it, or drop it. */
export type RuleVerdict = 'run' | RuleKind;
