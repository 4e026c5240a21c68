import { CommitbusError } from '../../../support/commitbus-error.js';

/** An ordered event (or a lane operation) on the SQL transport, which does not hold lanes yet. */
export class SqlOrderingUnavailableError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SQL_ORDERING_UNAVAILABLE';

  /** @param action - what was asked ("take ordered lanes"). */
  constructor(action: string) {
    super(
      `could not ${action}: the SQL transport does not hold ordered lanes yet. Publish events without an order key on it, or use the Redis transport for events with orderBy or delivery.orderKey`,
    );
  }
}
