import { CommitbusError } from '../../support/commitbus-error.js';

/** A serialized event is bigger than `maxEventBytes`; it was not registered or published. */
export class EventTooLargeError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_TOO_LARGE';

  constructor(
    readonly handlingKey: string,
    readonly eventId: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      `event ${handlingKey} ${eventId} is ${bytes} bytes serialized; the limit is ${limit} bytes (maxEventBytes). Keep large data in your database or object store and put its id in the event, or raise maxEventBytes`,
    );
  }
}
