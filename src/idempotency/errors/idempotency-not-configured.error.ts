import { CommitbusError } from '../../support/commitbus-error.js';

/** An idempotent handler cannot record its completions. */
export class IdempotencyNotConfiguredError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_IDEMPOTENCY_NOT_CONFIGURED';

  constructor(handler: string, reason: string, options?: ErrorOptions) {
    super(
      `handler ${handler} is idempotent but ${reason}. Idempotent handlers record completions in your database: pass dataSource to createEventBus, add COMMITBUS_ENTITIES to its entities and run COMMITBUS_MIGRATIONS (or synchronize)`,
      options,
    );
  }
}
