/** The event store was used in a way it does not allow; the message says what to do instead. */
export class EventStoreUsageError extends Error {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_USAGE';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EventStoreUsageError';
  }
}
