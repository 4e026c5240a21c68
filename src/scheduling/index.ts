export { DuplicateScheduleError } from './errors/duplicate-schedule.error.js';
export { MalformedParkedWorkError } from './errors/malformed-parked-work.error.js';
export { RuleTargetError } from './errors/rule-target.error.js';
export { ScheduleOptionsError } from './errors/schedule-options.error.js';
export type {
  CronSchedule,
  EverySchedule,
  ScheduledEventFactory,
  ScheduleHandle,
  ScheduleTick,
  ScheduleWhen,
} from './schedule.js';
export type { RuleKind, RuleTarget, SchedulingRule } from './scheduling-rule.js';
export type { SchedulingRules } from './scheduling-rules.js';
