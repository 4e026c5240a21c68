import { CommitbusError } from '../../support/commitbus-error.js';

/** Ordered events need the `commitbus_order_keys` table when the bus keeps an outbox. */
export class OrderingNotConfiguredError extends CommitbusError {
  /** Stable code for callers that catch it. */
  readonly code = 'COMMITBUS_ORDERING_NOT_CONFIGURED';

  constructor(problem: string, options?: ErrorOptions) {
    super(
      `ordered events cannot be sent: ${problem}. Add COMMITBUS_ENTITIES to your DataSource's entities and run COMMITBUS_MIGRATIONS (or synchronize)`,
      options,
    );
  }
}
