import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * A field of an event that JSON would change or could not carry (NaN, an
 * invalid Date, a BigInt, a cycle, ...): the event was not registered or
 * published, because every worker would get something else or nothing.
 */
export class InvalidEventFieldError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_INVALID_EVENT_FIELD';

  /**
   * @param handlingKey - the event's handling key.
   * @param eventId - the event's id.
   * @param path - the field, as in code: `createdAt`, `lines[2].price`.
   * @param problem - what is wrong with it and what to do, e.g. `is NaN, which JSON sends as null: ...`.
   */
  constructor(
    readonly handlingKey: string,
    readonly eventId: string,
    readonly path: string,
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(`event ${handlingKey} ${eventId} cannot be sent: field ${path} ${problem}`, options);
  }
}
