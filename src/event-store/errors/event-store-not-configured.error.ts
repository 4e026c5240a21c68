import { CommitbusError } from '../../support/commitbus-error.js';

/** The DataSource lacks the event store's tables, or is not PostgreSQL or SQLite. */
export class EventStoreNotConfiguredError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_NOT_CONFIGURED';

  constructor(reason: string, options?: ErrorOptions) {
    super(
      `the event store cannot run: ${reason}. Add COMMITBUS_ENTITIES to your DataSource's entities and run COMMITBUS_MIGRATIONS (or synchronize)`,
      options,
    );
  }

  /** `error` as this one when it says a table does not exist; otherwise `error` itself. */
  static ifTablesMissing(error: unknown): unknown {
    const message = error instanceof Error ? error.message : String(error);
    if (!/does not exist|no such table/i.test(message)) return error;
    return new EventStoreNotConfiguredError(`its tables are missing (${message})`, { cause: error });
  }
}
