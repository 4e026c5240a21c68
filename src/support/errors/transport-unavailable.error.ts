import { CommitbusError } from '../commitbus-error.js';

/** The transport's server could not be reached or refused a command. */
export class TransportUnavailableError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_TRANSPORT_UNAVAILABLE';

  /**
   * @param action - what could not be done ("publish 3 event(s)").
   * @param where - the server, without a password.
   * @param options - `cause` (kept, without secrets); `reason`, the cause as the message
   *   names it first (by default `cause`'s message); `fix`, what to do, a sentence (by
   *   default `Is the server running, and is <setting> right?`, `setting` by default `REDIS_URL`).
   */
  constructor(
    action: string,
    where: string,
    options: ErrorOptions & { cause: unknown; setting?: string; reason?: string; fix?: string },
  ) {
    const reason =
      options.reason ??
      (options.cause instanceof Error ? options.cause.message : String(options.cause)).replace(/\.+$/, '');
    const fix = options.fix ?? `Is the server running, and is ${options.setting ?? 'REDIS_URL'} right?`;
    super(`could not ${action} on ${where}: ${reason}. ${fix}`, { cause: options.cause });
  }
}
