/** The transport's server could not be reached or refused a command. */
export class TransportUnavailableError extends Error {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_TRANSPORT_UNAVAILABLE';

  constructor(action: string, where: string, options: ErrorOptions & { cause: unknown }) {
    const reason = (options.cause instanceof Error ? options.cause.message : String(options.cause)).replace(
      /\.+$/,
      '',
    );
    super(
      `could not ${action} on ${where}: ${reason}. Is the server running, and is REDIS_URL right?`,
      options,
    );
    this.name = 'TransportUnavailableError';
  }
}
