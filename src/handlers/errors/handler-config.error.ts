/** `EVENT_HANDLERS` is inconsistent with the registered events or itself. */
export class HandlerConfigError extends Error {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_HANDLER_CONFIG';

  constructor(message: string) {
    super(message);
    this.name = 'HandlerConfigError';
  }
}
