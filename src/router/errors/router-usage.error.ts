import { CommitbusError } from '../../support/commitbus-error.js';

/** A router part (`signWebhook`, a store's `addSigningSecret`) was called with an argument it cannot use; the message says which and what to pass. */
export class RouterUsageError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_ROUTER_USAGE';
}
