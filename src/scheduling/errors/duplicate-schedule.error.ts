import { CommitbusError } from '../../support/commitbus-error.js';

/** `bus.schedule` was given a name this bus already schedules; the first schedule runs on, unchanged. */
export class DuplicateScheduleError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_DUPLICATE_SCHEDULE';

  /** @param schedule - the name scheduled twice. */
  constructor(readonly schedule: string) {
    super(
      `a schedule named ${JSON.stringify(schedule)} already runs on this bus; give each schedule a name of its own, or call bus.unschedule(${JSON.stringify(schedule)}) first to replace it`,
    );
  }
}
