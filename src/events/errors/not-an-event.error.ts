import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * Something that is not an event was given where one is expected
 * (`bus.publish(null)`, `new SendEventOp(undefined)`, a plain object): nothing
 * was registered or published.
 */
export class NotAnEventError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_NOT_AN_EVENT';

  /**
   * @param where - what was given it, e.g. `bus.publish` or `new SendEventOp`.
   * @param got - what it got instead, described (`null`, `a plain object`, ...).
   */
  constructor(
    readonly where: string,
    readonly got: string,
  ) {
    super(
      `${where} expects an event, an instance of a class extending Event made with MyEvent.create({ ... }), but got ${got}`,
    );
  }
}
