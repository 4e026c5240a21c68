/** What stands in for a secret. */
const MASK = '***';

/** Redis commands whose arguments are credentials (`AUTH pw`, `HELLO 3 AUTH user pw`). */
const CREDENTIAL_COMMANDS = /^(auth|hello)$/i;

/** `text` with every secret in it masked. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret !== '') redacted = redacted.split(secret).join(MASK);
  }
  return redacted;
}

/**
 * A copy of `error` fit to keep in a `cause`, a log line or a message: its
 * class name, `code` and message (and stack) with every secret masked, and
 * its `cause` copied the same way; nothing else (ioredis puts the arguments
 * of the failed command, the password of `AUTH` among them, on its errors).
 */
export function sanitizeError(error: unknown, secrets: readonly string[], depth = 0): Error {
  if (!(error instanceof Error)) {
    return new SanitizedError('NonError', redactSecrets(String(error), secrets), undefined);
  }
  const code = (error as { code?: unknown }).code;
  const copy = new SanitizedError(
    error.name,
    redactSecrets(error.message, secrets),
    typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
  );
  copy.stack = error.stack === undefined ? undefined : redactSecrets(error.stack, secrets);
  if (error.cause !== undefined && depth < 8) {
    Object.defineProperty(copy, 'cause', {
      value: sanitizeError(error.cause, secrets, depth + 1),
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * Masks, in place, the credentials ioredis keeps on an error of a failed
 * `AUTH` or `HELLO` (`error.command.args`), and any secret among another
 * command's arguments. For the `error` listener of a connection, which runs
 * before callers' `catch` blocks see the same object.
 */
export function scrubCommandArgs(error: unknown, secrets: readonly string[]): void {
  const command = (error as { command?: { name?: unknown; args?: unknown } } | null)?.command;
  if (typeof command !== 'object' || command === null || !Array.isArray(command.args)) return;
  const all = typeof command.name === 'string' && CREDENTIAL_COMMANDS.test(command.name);
  command.args = command.args.map((arg: unknown) =>
    all || (typeof arg === 'string' && secrets.some((s) => s !== '' && arg.includes(s))) ? MASK : arg,
  );
}

/** A copy made by {@link sanitizeError}: the original's name, code and message. */
class SanitizedError extends Error {
  /** The original's `code`, when it had one. */
  readonly code?: string;

  constructor(name: string, message: string, code: string | undefined) {
    super(message);
    this.name = name;
    if (code !== undefined) this.code = code;
  }
}
