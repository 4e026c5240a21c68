import { CommitbusError } from '../commitbus-error.js';

/** The transport's server could not be reached or refused a command. */
export class TransportUnavailableError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_TRANSPORT_UNAVAILABLE';

  /**
   * @param action - what could not be done ("publish 3 event(s)").
   * @param where - the server, without a password.
   * @param options - `cause`, and `setting`: what to check (default `REDIS_URL`).
   */
  constructor(action: string, where: string, options: ErrorOptions & { cause: unknown; setting?: string }) {
    const reason = (options.cause instanceof Error ? options.cause.message : String(options.cause)).replace(
      /\.+$/,
      '',
    );
    super(
      `could not ${action} on ${where}: ${reason}. Is the server running, and is ${options.setting ?? 'REDIS_URL'} right?`,
      { cause: options.cause },
    );
  }
}
