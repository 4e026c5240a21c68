/**
 * The base of every error commitbus throws at its users. `code` is stable
 * across versions (`COMMITBUS_*`), so `catch` blocks and alerts test it
 * rather than the message, which may be reworded.
 *
 * @example
 * ```ts
 * try { await bus.publish(event); }
 * catch (error) {
 *   if (error instanceof CommitbusError && error.code === 'COMMITBUS_UNKNOWN_EVENT_TYPE') ...
 * }
 * ```
 */
export abstract class CommitbusError extends Error {
  /** Stable, machine-readable code, `COMMITBUS_*`. */
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Whether a value is a commitbus error, across copies of the package. */
export function isCommitbusError(value: unknown): value is CommitbusError {
  if (value instanceof CommitbusError) return true;
  const code: unknown = value instanceof Error ? (value as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('COMMITBUS_');
}
