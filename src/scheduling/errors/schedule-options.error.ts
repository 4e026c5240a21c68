import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * `bus.schedule` was given a schedule it cannot run: a bad name, an unknown
 * option, both `every` and `cron` or neither, an `every` that is not a whole
 * number of milliseconds at or above the minimum, a cron expression or time
 * zone that does not parse, or no event factory. Nothing was scheduled.
 */
export class ScheduleOptionsError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SCHEDULE_OPTIONS';

  /**
   * @param schedule - the schedule's name as given.
   * @param problem - what is wrong and how to write it instead.
   */
  constructor(
    readonly schedule: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`cannot schedule ${JSON.stringify(schedule)}: ${problem}`, options);
  }
}
