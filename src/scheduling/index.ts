export { MalformedParkedWorkError } from './malformed-parked-work.error.js';
export type { ParkedWork } from './parked-work.js';
export { RuleTargetError } from './rule-target.error.js';
export type { RuleKind, RuleTarget, RuleVerdict, SchedulingRule } from './scheduling-rule.js';
export type { SchedulingRuleStore } from './scheduling-rule-store.js';
export { SchedulingRules } from './scheduling-rules.js';
