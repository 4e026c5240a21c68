import type { Event } from '../events/event.js';

/**
 * A schedule that ticks every `every` milliseconds, at whole multiples of
 * `every` since the Unix epoch (`every: 60_000` ticks at the start of each
 * minute, UTC), so every process of the bus agrees on the ticks.
 */
export interface EverySchedule {
  /** Milliseconds between ticks: a whole number, at least 10. */
  readonly every: number;
  readonly cron?: never;
  readonly tz?: never;
}

/**
 * A schedule that ticks at the times a cron expression names (five fields,
 * `minute hour day-of-month month day-of-week`, or six with seconds first;
 * `@hourly`, `@daily` and the like too), read in the time zone `tz`.
 */
export interface CronSchedule {
  /** The cron expression, e.g. `'0 * * * *'` (each hour) or `'30 8 * * 1-5'` (8:30 on weekdays). */
  readonly cron: string;
  /**
   * The IANA time zone the expression is read in, e.g. `'Europe/Paris'`
   * (daylight saving included).
   * @defaultValue `'UTC'`
   */
  readonly tz?: string;
  readonly every?: never;
}

/** When a schedule ticks: {@link EverySchedule} or {@link CronSchedule}. */
export type ScheduleWhen = EverySchedule | CronSchedule;

/** The tick a scheduled event is made for. */
export interface ScheduleTick {
  /** The schedule's name. */
  readonly name: string;
  /** The time of the tick (the one the schedule names, not when it ran). */
  readonly at: Date;
}

/**
 * Makes the event a tick publishes, called once per tick in the one process
 * that won it. A factory that throws, or resolves to something that is not a
 * registered event, publishes nothing for that tick (logged).
 */
export type ScheduledEventFactory = (tick: ScheduleTick) => Event | Promise<Event>;

/** A schedule of a bus, as `bus.schedule` returns it. */
export interface ScheduleHandle {
  /** The schedule's name. */
  readonly name: string;
  /**
   * Stops the schedule in this process, as `bus.unschedule(name)`: resolves
   * once a tick under way is done; no tick of it publishes from this process
   * after that.
   */
  stop(): Promise<void>;
}
