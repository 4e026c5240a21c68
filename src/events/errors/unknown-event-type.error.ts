import { CommitbusError } from '../../support/commitbus-error.js';

/** No event class is registered for a handling key. */
export class UnknownEventTypeError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNKNOWN_EVENT_TYPE';

  constructor(
    readonly handlingKey: string,
    readonly knownKeys: readonly string[],
  ) {
    super(
      `no event class registered for ${JSON.stringify(handlingKey)} (known: ${knownKeys.join(', ') || 'none'}); add the class to the registry passed to createEventBus`,
    );
  }
}
