import { CommitbusError } from '../../support/commitbus-error.js';

/** The DataSource has no `commitbus_outbox` entity or table, so events cannot be kept safe. */
export class OutboxNotConfiguredError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_OUTBOX_NOT_CONFIGURED';

  constructor(reason: string, options?: ErrorOptions) {
    super(
      `the transactional outbox is on but ${reason}. Add COMMITBUS_ENTITIES to your DataSource's entities and run COMMITBUS_MIGRATIONS (or synchronize), or set outbox: { enabled: false } in the config to publish after commit without an outbox`,
      options,
    );
  }
}
