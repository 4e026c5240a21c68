export { MalformedParkedWorkError } from './errors/malformed-parked-work.error.js';
export { RuleTargetError } from './errors/rule-target.error.js';
export type { RuleKind, RuleTarget, SchedulingRule } from './scheduling-rule.js';
export type { SchedulingRules } from './scheduling-rules.js';
