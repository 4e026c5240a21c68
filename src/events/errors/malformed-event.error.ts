import { CommitbusError } from '../../support/commitbus-error.js';

/** A serialized event cannot be decoded: not JSON, or not a commitbus envelope. */
export class MalformedEventError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_MALFORMED_EVENT';

  constructor(
    reason: string,
    readonly payload: string,
    options?: ErrorOptions,
  ) {
    const preview = payload.length > 200 ? `${payload.slice(0, 200)}…` : payload;
    super(
      `malformed event payload (${reason}); it was not produced by this version of commitbus's serializer: ${preview}`,
      options,
    );
  }
}
