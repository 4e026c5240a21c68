import { CommitbusError } from '../../support/commitbus-error.js';

/** An event id that cannot travel: ids may use letters, digits, "_" and "-" (at most 128). */
export class InvalidEventIdError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_INVALID_EVENT_ID';

  constructor(readonly eventId: unknown) {
    super(
      `invalid event id ${JSON.stringify(eventId)}: use letters, digits, "_" and "-" (at most 128), or leave id out to get a UUIDv7`,
    );
  }
}
