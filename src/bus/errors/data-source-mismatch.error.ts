import { CommitbusError } from '../../support/commitbus-error.js';

/** A bus that already has a DataSource was given another one (through a second `UnitOfWorkManager`). */
export class DataSourceMismatchError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_DATA_SOURCE_MISMATCH';

  constructor() {
    super(
      'this bus already uses another DataSource for its outbox and idempotent handlers: create one bus per DataSource (createEventBus({ dataSource })), and give each UnitOfWorkManager the bus of its DataSource',
    );
  }
}
