import { createRequire } from 'node:module';

type CronParser = typeof import('cron-parser')['CronExpressionParser'];
let cronParser: CronParser | undefined;

/**
 * cron-parser (and luxon under it) is loaded by the first cron schedule,
 * not with the package root: a bus that schedules nothing never loads it
 * (`test/package/root-imports.test.ts`). Synchronous, so a bad cron text is
 * still refused by `bus.schedule()` itself.
 */
function cronExpressions(): CronParser {
  cronParser ??= (createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser'))
    .CronExpressionParser;
  return cronParser;
}

import { ScheduleOptionsError } from './errors/schedule-options.error.js';

/** When a schedule's ticks fall: pure functions of the time, the same in every process. */
export interface ScheduleTrigger {
  /** The latest tick at or before `now` (epoch ms), or `undefined` if there is none. */
  latest(now: number): number | undefined;
  /** The first tick after `now` (epoch ms). */
  next(now: number): number;
}

/** The shortest `every` a schedule takes, in milliseconds. */
export const MIN_EVERY_MS = 10;

const OPTION_NAMES = ['every', 'cron', 'tz'];
const EXAMPLES = "{ every: 60_000 } or { cron: '0 * * * *', tz: 'Europe/Paris' }";

/**
 * The trigger of `when` (a `ScheduleWhen`, checked here since callers may
 * pass anything), or a {@link ScheduleOptionsError} naming what is wrong.
 */
export function scheduleTrigger(name: string, when: unknown): ScheduleTrigger {
  const refuse = (problem: string, cause?: unknown): never => {
    throw new ScheduleOptionsError(name, problem, cause === undefined ? undefined : { cause });
  };
  if (typeof when !== 'object' || when === null || Array.isArray(when)) {
    return refuse(`say when it ticks: ${EXAMPLES}`);
  }
  const unknown = Object.keys(when).filter((key) => !OPTION_NAMES.includes(key));
  if (unknown.length > 0) {
    refuse(
      `a schedule has no option ${unknown.map((k) => `'${k}'`).join(', ')}; its options are every, or cron with tz`,
    );
  }
  const { every, cron, tz } = when as { every?: unknown; cron?: unknown; tz?: unknown };
  if (every !== undefined && cron !== undefined) refuse(`give every or cron, not both: ${EXAMPLES}`);
  if (every !== undefined) {
    if (tz !== undefined) refuse('tz goes with cron only: every counts milliseconds, in no time zone');
    if (typeof every !== 'number' || !Number.isSafeInteger(every) || every < MIN_EVERY_MS) {
      refuse(`every must be a whole number of milliseconds, at least ${MIN_EVERY_MS}; got ${String(every)}`);
    }
    return everyTrigger(every as number);
  }
  if (cron === undefined) return refuse(`say when it ticks: ${EXAMPLES}`);
  if (typeof cron !== 'string' || cron.trim() === '')
    refuse(`cron must be a cron expression such as '0 * * * *'; got ${String(cron)}`);
  if (tz !== undefined && !isTimeZone(tz)) {
    refuse(`tz must be an IANA time zone such as 'Europe/Paris' or 'UTC'; got ${String(tz)}`);
  }
  return cronTrigger(name, cron as string, (tz as string | undefined) ?? 'UTC', refuse);
}

function everyTrigger(every: number): ScheduleTrigger {
  return {
    latest: (now) => Math.floor(now / every) * every,
    next: (now) => (Math.floor(now / every) + 1) * every,
  };
}

function cronTrigger(
  name: string,
  cron: string,
  tz: string,
  refuse: (problem: string, cause?: unknown) => never,
): ScheduleTrigger {
  const parser = cronExpressions();
  const at = (now: number) => parser.parse(cron, { currentDate: new Date(now), tz });
  try {
    at(Date.now()).next();
  } catch (error) {
    refuse(`cron ${JSON.stringify(cron)} does not parse, or never ticks: ${(error as Error).message}`, error);
  }
  return {
    // cron-parser counts in whole seconds and its prev() is strictly before: start from the next second.
    latest: (now) => {
      try {
        return at((Math.floor(now / 1000) + 1) * 1000)
          .prev()
          .getTime();
      } catch {
        return undefined;
      }
    },
    next: (now) => {
      try {
        return at(now).next().getTime();
      } catch (error) {
        throw new ScheduleOptionsError(
          name,
          `cron ${JSON.stringify(cron)} has no tick after ${new Date(now).toISOString()}`,
          { cause: error },
        );
      }
    },
  };
}

/** Whether `tz` names a time zone this Node knows. */
function isTimeZone(tz: unknown): boolean {
  if (typeof tz !== 'string' || tz === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
