/** No event class is registered for a handling key. */
export class UnknownEventTypeError extends Error {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_UNKNOWN_EVENT_TYPE';

  constructor(
    readonly handlingKey: string,
    readonly knownKeys: readonly string[],
  ) {
    super(
      `no event class registered for ${JSON.stringify(handlingKey)} (known: ${knownKeys.join(', ') || 'none'}); add the class to the registry passed to createEventBus`,
    );
    this.name = 'UnknownEventTypeError';
  }
}
