import { CommitbusError } from '../../support/commitbus-error.js';

/** `settle()` was called on a test bus that runs no handlers (`runHandlers: false`, or not started). */
export class TestBusNotStartedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_TEST_BUS_NOT_STARTED';

  constructor() {
    super(
      'this test bus runs no handlers (runHandlers: false), so it cannot settle: call start() first, or assert on bus.published without settle()',
    );
  }
}
