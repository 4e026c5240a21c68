import { CommitbusError } from '../../support/commitbus-error.js';

/** A dashboard API request is malformed: the message says which field and what it takes. */
export class DashboardRequestError extends CommitbusError {
  /** Stable code for `catch` blocks and API clients. */
  readonly code = 'COMMITBUS_DASHBOARD_REQUEST';
}
