import { CommitbusError } from '../../support/commitbus-error.js';

/** An event's order key is not a non-empty string of at most 512 characters. */
export class InvalidOrderKeyError extends CommitbusError {
  /** Stable code for callers that catch it. */
  readonly code = 'COMMITBUS_INVALID_ORDER_KEY';

  constructor(key: unknown, eventKey: string, maxLength: number) {
    super(
      `order key ${JSON.stringify(key) ?? String(key)} of a ${eventKey} event is invalid: orderBy (or the orderKey option) must give a non-empty string of at most ${maxLength} characters, such as "record:42"`,
    );
  }
}
